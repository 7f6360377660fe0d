#include "app/compare/experiment_diff.h"

#include "app/compare/field_labels.h"

#include <QRegularExpression>

#include <algorithm>

namespace strata::app {

namespace {

using Json = nlohmann::ordered_json;

// The nodes of the documents at one path; null where a document lacks it.
using Nodes = std::vector<const Json*>;

QString valueText(const Json* node)
{
    if (!node)
        return QStringLiteral("(absent)");
    if (node->is_string())
        return QString::fromStdString(node->get<std::string>());
    return QString::fromStdString(node->dump(-1, ' ', false, Json::error_handler_t::replace));
}

bool listOfObjects(const Json& list)
{
    return std::any_of(list.begin(), list.end(), [](const Json& item) { return item.is_object(); });
}

void compare(const Nodes& nodes, const QString& path, bool setup, std::vector<ExperimentDifference>& out)
{
    // Objects present in some documents are compared key by key (a key a document lacks is
    // then "(absent)" there).
    const bool objects = std::all_of(nodes.begin(), nodes.end(), [](const Json* n) { return !n || n->is_object(); })
                         && std::any_of(nodes.begin(), nodes.end(), [](const Json* n) { return n != nullptr; });
    if (objects) {
        std::vector<std::string> keys;
        for (const Json* n : nodes)
            if (n)
                for (const auto& [key, value] : n->items())
                    if (std::find(keys.begin(), keys.end(), key) == keys.end())
                        keys.push_back(key);
        for (const std::string& key : keys) {
            if (path.isEmpty() && (key == "name" || key == "description"))
                continue;
            Nodes children;
            for (const Json* n : nodes)
                children.push_back(n && n->contains(key) ? &(*n)[key] : nullptr);
            const QString child = path.isEmpty() ? QString::fromStdString(key) : path + '.' + QString::fromStdString(key);
            compare(children, child, setup || (path.isEmpty() && (key == "strategy" || key == "cluster")), out);
        }
        return;
    }
    // Lists of objects present in every document are compared item by item.
    if (std::all_of(nodes.begin(), nodes.end(), [](const Json* n) { return n && n->is_array(); })
        && std::any_of(nodes.begin(), nodes.end(), [](const Json* n) { return listOfObjects(*n); })) {
        size_t length = 0;
        for (const Json* n : nodes)
            length = std::max(length, n->size());
        for (size_t i = 0; i < length; ++i) {
            Nodes items;
            for (const Json* n : nodes)
                items.push_back(i < n->size() ? &(*n)[i] : nullptr);
            compare(items, QStringLiteral("%1[%2]").arg(path).arg(i), setup, out);
        }
        return;
    }
    const bool same = std::all_of(nodes.begin(), nodes.end(), [&](const Json* n) {
        return n && nodes.front() && *n == *nodes.front();
    });
    if (same)
        return;
    ExperimentDifference d;
    d.path = path;
    d.setup = setup;
    for (const Json* n : nodes)
        d.values << valueText(n);
    out.push_back(std::move(d));
}

// The type of layer `index` where every document that has it agrees on one; empty otherwise.
QString layerType(const std::vector<Json>& documents, size_t index)
{
    QString type;
    for (const Json& d : documents) {
        const Json* layers = d.contains("model") && d["model"].is_object() && d["model"].contains("layers")
                                 ? &d["model"]["layers"]
                                 : nullptr;
        if (!layers || !layers->is_array() || index >= layers->size())
            continue;
        const Json& layer = (*layers)[index];
        const QString t = layer.is_object() && layer.contains("type") && layer["type"].is_string()
                              ? QString::fromStdString(layer["type"].get<std::string>())
                              : QString();
        if (t.isEmpty() || (!type.isEmpty() && t != type))
            return {};
        type = t;
    }
    return type;
}

} // namespace

QString ExperimentDifference::text() const
{
    return path + QStringLiteral(": ") + values.join(QStringLiteral(" | "));
}

std::vector<ExperimentDifference> experimentDifferences(const std::vector<Json>& documents)
{
    std::vector<ExperimentDifference> out;
    if (documents.size() < 2)
        return out;
    Nodes roots;
    for (const Json& d : documents)
        roots.push_back(&d);
    compare(roots, QString(), false, out);
    static const QRegularExpression layer(QStringLiteral(R"(^model\.layers\[(\d+)\])"));
    for (ExperimentDifference& d : out) {
        const QRegularExpressionMatch m = layer.match(d.path);
        d.label = experimentFieldLabel(d.path, m.hasMatch() ? layerType(documents, m.captured(1).toULongLong()) : QString());
    }
    return out;
}

} // namespace strata::app
