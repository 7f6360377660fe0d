#include "app/experiment/experiment_document.h"

#include "app/experiment/json_variant.h"

#include "strata/core/error.h"
#include "strata/schema/experiment.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

namespace strata::app {

namespace {

// Merge window for consecutive edits of one field.
constexpr qint64 kMergeMs = 1000;

const char* kDefaultExperiment = R"({
  "strata": 1,
  "name": "fashion-mnist-mlp",
  "description": "The seeds' 784-128-10 MLP on Fashion-MNIST.",
  "seed": 42,
  "strategy": {"type": "OneDevice", "device": "cpu:0"},
  "model": {
    "input_shape": [28, 28],
    "layers": [
      {"type": "Flatten"},
      {"type": "Dense", "units": 128, "activation": "relu"},
      {"type": "Dense", "units": 10}
    ]
  },
  "data": {"source": {"type": "fashion_mnist"}, "validation": "test"},
  "training": {
    "epochs": 5,
    "batch_size": 32,
    "loss": {"type": "sparse_categorical_crossentropy", "from_logits": true},
    "metrics": ["accuracy"],
    "optimizer": {"type": "adam", "learning_rate": 0.001},
    "checkpoint": {"every_epochs": 1}
  }
})";

Json::json_pointer pointerOf(const QString& pointer) { return Json::json_pointer(pointer.toStdString()); }

QStringList exampleDirs()
{
    const QString app = QCoreApplication::applicationDirPath();
    return {app + "/../share/strata/experiments", QStringLiteral(STRATA_SOURCE_DIR) + "/resources/experiments",
            "/usr/share/strata/experiments"};
}

// A path written in the document, relative to `from`, made relative to `to` (absolute and
// "~/" paths stay as they are).
void rebase(Json& value, const QDir& from, const QDir& to)
{
    if (!value.is_string())
        return;
    const QString p = QString::fromStdString(value.get<std::string>());
    if (!p.isEmpty() && QDir::isRelativePath(p) && !p.startsWith("~"))
        value = to.relativeFilePath(from.absoluteFilePath(p)).toStdString();
}

// The relative paths of a document (data files, a model kept in a file) rewritten for a
// document saved in another directory. Sections that are missing or not yet objects are
// left as they are: an unfinished experiment is saved as written.
void rebasePaths(Json& document, const QDir& from, const QDir& to)
{
    if (!document.is_object())
        return;
    if (const auto model = document.find("model"); model != document.end())
        rebase(*model, from, to);
    const auto data = document.find("data");
    if (data == document.end() || !data->is_object())
        return;
    const auto source = data->find("source");
    if (source == data->end() || !source->is_object())
        return;
    for (auto& [key, value] : source->items())
        if (key == "dir" || key.find("train") == 0 || key.find("test") == 0)
            rebase(value, from, to);
}

} // namespace

ExperimentDocument::ExperimentDocument(QObject* parent) : QObject(parent) { newDocument(); }

QString ExperimentDocument::displayName() const
{
    if (!m_filePath.isEmpty())
        return QFileInfo(m_filePath).fileName();
    const std::string name = m_json.is_object() ? m_json.value("name", std::string()) : std::string();
    return name.empty() ? tr("Untitled") : QString::fromStdString(name) + tr(" (unsaved)");
}

Json ExperimentDocument::defaultExperiment() { return Json::parse(kDefaultExperiment); }

void ExperimentDocument::reset(Json document, const QString& path, const QString& baseDir)
{
    m_json = std::move(document);
    m_filePath = path;
    m_baseDir = baseDir;
    m_history.clear();
    m_position = 0;
    m_savedPosition = 0;
    setDirty(false);
    revalidate();
    Q_EMIT filePathChanged();
    Q_EMIT undoStateChanged();
    Q_EMIT changed();
}

void ExperimentDocument::newDocument() { reset(defaultExperiment(), {}, QDir::currentPath()); }

bool ExperimentDocument::load(const QString& path, QString* error)
{
    try {
        Json document = schema::readJsonFile(path.toStdString());
        if (!document.is_object())
            throw Error(path.toStdString() + ": not an experiment (the document must be a JSON object)");
        const QFileInfo info(path);
        reset(std::move(document), info.absoluteFilePath(), info.absolutePath());
        return true;
    } catch (const ParseError& e) {
        if (error)
            *error = tr("%1: not valid JSON at line %2, column %3: %4")
                         .arg(path)
                         .arg(e.line())
                         .arg(e.column())
                         .arg(QString::fromStdString(e.detail()));
        return false;
    } catch (const Error& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
}

bool ExperimentDocument::newFromExample(const QString& path, QString* error)
{
    if (!load(path, error))
        return false;
    // Untitled, but its relative data paths still resolve against the example's directory.
    m_filePath.clear();
    Q_EMIT filePathChanged();
    return true;
}

bool ExperimentDocument::save(QString* error)
{
    if (m_filePath.isEmpty()) {
        if (error)
            *error = tr("The experiment has no file yet: use Save As.");
        return false;
    }
    return saveAs(m_filePath, error);
}

bool ExperimentDocument::saveAs(const QString& path, QString* error)
{
    const QFileInfo info(path);
    // Relative paths were written against the old directory: keep them pointing at the same
    // files from the new one, in the history too (an undo must not bring back the old ones).
    Json document = m_json;
    const QDir from(m_baseDir), to(info.absolutePath());
    const bool moved = from != to;
    if (moved)
        rebasePaths(document, from, to);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    const std::string text = document.dump(2) + "\n";
    file.write(text.data(), static_cast<qint64>(text.size()));
    // flush() first: Qt 6.4's commit() ignores a failed flush (a full disk) and would replace
    // the document with an empty file.
    if (!file.flush() || !file.commit()) {
        if (error)
            *error = tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    m_json = std::move(document);
    if (moved)
        for (Edit& edit : m_history) {
            rebasePaths(edit.before, from, to);
            rebasePaths(edit.after, from, to);
        }
    m_filePath = info.absoluteFilePath();
    m_baseDir = info.absolutePath();
    m_savedPosition = m_position;
    setDirty(false);
    revalidate();
    Q_EMIT filePathChanged();
    Q_EMIT changed();
    return true;
}

Json ExperimentDocument::value(const QString& pointer) const
{
    const auto p = pointerOf(pointer);
    if (m_json.contains(p))
        return m_json.at(p);
    // "strategy": "Mirrored" is short for {"type": "Mirrored"} (also losses, optimizers).
    if (!p.empty() && p.back() == "type" && m_json.contains(p.parent_pointer()) && m_json.at(p.parent_pointer()).is_string())
        return m_json.at(p.parent_pointer());
    return Json();
}

void ExperimentDocument::apply(Edit edit, bool mergeable)
{
    // A redo branch ends where a new edit begins.
    m_history.resize(m_position);
    if (m_savedPosition > m_position)
        m_savedPosition = static_cast<size_t>(-1); // the saved state is no longer reachable
    const bool merge = mergeable && !m_history.empty() && m_position != m_savedPosition &&
                       m_history.back().pointer == edit.pointer && !edit.pointer.isEmpty() &&
                       edit.at - m_history.back().at < kMergeMs;
    m_json = edit.after;
    if (merge) {
        m_history.back().after = std::move(edit.after);
        m_history.back().at = edit.at;
    } else {
        m_history.push_back(std::move(edit));
        ++m_position;
    }
    setDirty(m_position != m_savedPosition);
    revalidate();
    Q_EMIT undoStateChanged();
    Q_EMIT changed();
}

void ExperimentDocument::set(const QString& pointer, const Json& value)
{
    const auto p = pointerOf(pointer);
    if (m_json.contains(p) && m_json.at(p) == value)
        return;
    Edit e{tr("Change %1").arg(pointer.mid(1).replace('/', '.')), pointer, m_json, m_json, QDateTime::currentMSecsSinceEpoch()};
    // A field of a value written in short form ("optimizer": "adam") expands it first.
    if (!p.empty() && e.after.contains(p.parent_pointer()) && e.after[p.parent_pointer()].is_string())
        e.after[p.parent_pointer()] = Json{{"type", e.after[p.parent_pointer()]}};
    e.after[p] = value;
    apply(std::move(e), true);
}

void ExperimentDocument::setType(const QString& pointer, const QString& type, const QStringList& keep)
{
    if (value(pointer + "/type") == Json(type.toStdString()))
        return;
    Json after = m_json;
    after[pointerOf(pointer)] = ofType(value(pointer), type, keep);
    apply({tr("Change %1 to %2").arg(pointer.mid(1).replace('/', '.'), type), {}, m_json, after,
           QDateTime::currentMSecsSinceEpoch()},
          false);
}

Json ExperimentDocument::ofType(const Json& before, const QString& type, const QStringList& keep)
{
    Json object{{"type", type.toStdString()}};
    if (before.is_object())
        for (const auto& field : keep)
            if (before.contains(field.toStdString()))
                object[field.toStdString()] = before[field.toStdString()];
    return object;
}

void ExperimentDocument::remove(const QString& pointer)
{
    const auto p = pointerOf(pointer);
    if (p.empty() || !m_json.contains(p))
        return;
    Edit e{tr("Remove %1").arg(pointer.mid(1).replace('/', '.')), {}, m_json, m_json, QDateTime::currentMSecsSinceEpoch()};
    Json& parent = e.after[p.parent_pointer()];
    if (parent.is_array()) // an element of a list (contains() checked the index)
        parent.erase(parent.begin() + std::stol(p.back()));
    else
        parent.erase(p.back());
    apply(std::move(e), false);
}

void ExperimentDocument::replace(const Json& document, const QString& label)
{
    apply({label, {}, m_json, document, QDateTime::currentMSecsSinceEpoch()}, false);
}

int ExperimentDocument::layerCount() const
{
    const Json layers = value("/model/layers");
    return layers.is_array() ? static_cast<int>(layers.size()) : 0;
}

void ExperimentDocument::insertLayer(int index, const Json& layer)
{
    Json after = m_json;
    Json& layers = after["model"]["layers"];
    if (!layers.is_array())
        layers = Json::array();
    index = std::clamp(index, 0, static_cast<int>(layers.size()));
    layers.insert(layers.begin() + index, layer);
    apply({tr("Add %1 layer").arg(QString::fromStdString(layer.value("type", std::string("a")))), {}, m_json, after,
           QDateTime::currentMSecsSinceEpoch()},
          false);
}

void ExperimentDocument::removeLayer(int index)
{
    if (index < 0 || index >= layerCount())
        return;
    Json after = m_json;
    Json& layers = after["model"]["layers"];
    layers.erase(layers.begin() + index);
    apply({tr("Remove layer"), {}, m_json, after, QDateTime::currentMSecsSinceEpoch()}, false);
}

void ExperimentDocument::moveLayer(int from, int to)
{
    const int n = layerCount();
    if (from < 0 || from >= n || to < 0 || to >= n || from == to)
        return;
    Json after = m_json;
    Json& layers = after["model"]["layers"];
    Json moved = layers[static_cast<size_t>(from)];
    layers.erase(layers.begin() + from);
    layers.insert(layers.begin() + to, moved);
    apply({tr("Move layer"), {}, m_json, after, QDateTime::currentMSecsSinceEpoch()}, false);
}

void ExperimentDocument::insertLayer(int index, const QString& type)
{
    Json layer{{"type", type.toStdString()}};
    if (type == "Dense" || type == "LSTM" || type == "GRU")
        layer["units"] = 32;
    else if (type == "Conv2D" || type == "Conv1D")
        layer.update({{"filters", 32}, {"kernel_size", 3}, {"activation", "relu"}});
    else if (type == "Dropout")
        layer["rate"] = 0.5;
    else if (type == "Embedding")
        layer.update({{"input_dim", 1000}, {"output_dim", 16}});
    else if (type == "Activation")
        layer["activation"] = "relu";
    else if (type == "Reshape")
        layer["target_shape"] = Json::array({-1}); // flattens: fits any input until edited
    insertLayer(index, layer);
}

QVariant ExperimentDocument::get(const QString& pointer) const { return toVariant(value(pointer)); }

void ExperimentDocument::setValue(const QString& pointer, const QVariant& v)
{
    if (!v.isValid())
        remove(pointer);
    else
        set(pointer, fromVariant(v));
}

QVariantMap ExperimentDocument::layer(int index) const
{
    return get("/model/layers/" + QString::number(index)).toMap();
}

void ExperimentDocument::setLayerField(int index, const QString& field, const QVariant& v)
{
    setValue("/model/layers/" + QString::number(index) + "/" + field, v);
}

bool ExperimentDocument::importKerasModel(const QString& path, QString* error)
{
    try {
        const Json keras = schema::readJsonFile(path.toStdString());
        schema::Problems problems;
        const schema::ModelSpec model = schema::importKerasModel(keras, "model", problems);
        problems.throwIfAny();
        Json after = m_json;
        after["model"] = schema::modelToJson(model);
        replace(after, tr("Import Keras model"));
        return true;
    } catch (const Error& e) {
        if (error)
            *error = tr("Cannot import %1: %2").arg(path, QString::fromStdString(e.what()));
        return false;
    }
}

QString ExperimentDocument::text(const QString& pointer) const
{
    return QString::fromStdString(value(pointer).dump(2));
}

QString ExperimentDocument::undoLabel() const { return canUndo() ? m_history[m_position - 1].label : QString(); }
QString ExperimentDocument::redoLabel() const { return canRedo() ? m_history[m_position].label : QString(); }

void ExperimentDocument::undo()
{
    if (!canUndo())
        return;
    --m_position;
    m_json = m_history[m_position].before;
    setDirty(m_position != m_savedPosition);
    revalidate();
    Q_EMIT undoStateChanged();
    Q_EMIT changed();
}

void ExperimentDocument::redo()
{
    if (!canRedo())
        return;
    m_json = m_history[m_position].after;
    ++m_position;
    setDirty(m_position != m_savedPosition);
    revalidate();
    Q_EMIT undoStateChanged();
    Q_EMIT changed();
}

void ExperimentDocument::setDirty(bool dirty)
{
    if (dirty == m_dirty)
        return;
    m_dirty = dirty;
    Q_EMIT dirtyChanged(dirty);
}

void ExperimentDocument::setHost(const HostCapabilities& host)
{
    m_host = host;
    revalidate();
}

void ExperimentDocument::revalidate()
{
    m_validation = validate(m_json, m_baseDir, m_host);
    Q_EMIT validationChanged();
}

Json ExperimentDocument::forLaunch() const
{
    try {
        schema::Experiment e = schema::parseExperiment(m_json, m_baseDir.toStdString());
        auto& s = e.data.source;
        for (std::string* path : {&s.dir, &s.trainImages, &s.trainLabels, &s.testImages, &s.testLabels, &s.train, &s.test})
            *path = schema::resolvePath(e, *path);
        return schema::experimentToJson(e);
    } catch (const Error&) {
        return m_json;
    }
}

std::vector<std::pair<QString, QString>> ExperimentDocument::examples()
{
    for (const QString& dir : exampleDirs()) {
        const QDir d(dir);
        const QStringList files = d.entryList({"*.strata.json"}, QDir::Files, QDir::Name);
        if (files.isEmpty())
            continue;
        std::vector<std::pair<QString, QString>> out;
        for (const QString& f : files)
            out.emplace_back(QString(f).remove(".strata.json"), d.absoluteFilePath(f));
        return out;
    }
    return {};
}

} // namespace strata::app
