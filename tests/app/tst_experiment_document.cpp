// ExperimentDocument: new/load/save and their signals, undo/redo (with typing merged into one
// step), type switches, layer edits, the Qt-typed accessors, examples and their relative
// paths, the launch copy, Keras import, validation kept current, and the engine's defaults in
// Qt types (app::fieldDefault, what the setup pages show for absent fields).

#include "app/experiment/catalogs.h"
#include "app/experiment/experiment_document.h"

#include <QSignalSpy>
#include <QtTest>

using namespace strata::app;

namespace {

QString writeText(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

Json readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return Json();
    return Json::parse(f.readAll().toStdString(), nullptr, false);
}

QString problems(const ExperimentDocument& doc)
{
    QStringList lines;
    for (const Problem& p : doc.validation().problems)
        lines << p.text();
    return lines.join('\n');
}

QString canonical(const QString& path) { return QFileInfo(path).canonicalFilePath(); }

// A Keras 2.x (TF 2.12) Sequential model.to_json() of the seeds' MLP, as Keras writes it.
const char* const kKerasMlp = R"({"class_name": "Sequential", "config": {"name": "sequential", "layers": [
  {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 28, 28], "dtype": "float32", "sparse": false, "ragged": false, "name": "flatten_input"}},
  {"class_name": "Flatten", "config": {"name": "flatten", "trainable": true, "dtype": "float32", "batch_input_shape": [null, 28, 28], "data_format": "channels_last"}},
  {"class_name": "Dense", "config": {"name": "dense", "trainable": true, "dtype": "float32", "units": 64, "activation": "relu", "use_bias": true,
     "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}}, "bias_initializer": {"class_name": "Zeros", "config": {}},
     "kernel_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}},
  {"class_name": "Dropout", "config": {"name": "dropout", "trainable": true, "dtype": "float32", "rate": 0.2, "noise_shape": null, "seed": null}},
  {"class_name": "Dense", "config": {"name": "dense_1", "trainable": true, "dtype": "float32", "units": 10, "activation": "softmax", "use_bias": true,
     "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}}, "bias_initializer": {"class_name": "Zeros", "config": {}},
     "kernel_regularizer": null, "bias_regularizer": null, "activity_regularizer": null, "kernel_constraint": null, "bias_constraint": null}}]},
  "keras_version": "2.12.0", "backend": "tensorflow"})";

} // namespace

class TestExperimentDocument : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // The table's values by JSON pointer, in the Qt types the editors take.
    void engineDefaultsByPointer()
    {
        QCOMPARE(fieldDefault("/training/epochs"), QVariant(qint64(1)));
        QCOMPARE(fieldDefault("/training/batch_size").toInt(), 32);
        QCOMPARE(fieldDefault("/training/loss/from_logits"), QVariant(false));
        QCOMPARE(fieldDefault("/training/optimizer/type"), QVariant(QString("adam")));
        QCOMPARE(fieldDefault("/training/metrics"), QVariant(QStringList{"accuracy"}));
        // A default that depends on a setting, and one for any other value of it.
        QCOMPARE(fieldDefault("/training/optimizer/learning_rate", "sgd").toDouble(), 0.01);
        QCOMPARE(fieldDefault("/training/optimizer/learning_rate", "rmsprop").toDouble(), 0.001);
        QCOMPARE(fieldDefault("/strategy/timeout_seconds", "ParameterServer").toDouble(), 3.0);
        // List indices are not part of a field's name.
        QCOMPARE(fieldDefault("/cluster/nodes/3/ssh_port").toInt(), 22);
        QVERIFY(!fieldDefault("/training/no_such_field").isValid());
        QCOMPARE(defaultBucketBytes(), fieldDefault("/strategy/bucket_bytes").toLongLong());
    }

    void newDocumentIsTheDefaultExperiment()
    {
        ExperimentDocument doc;
        QCOMPARE(doc.json(), ExperimentDocument::defaultExperiment());
        QCOMPARE(doc.json()["name"].get<std::string>(), std::string("fashion-mnist-mlp"));
        QVERIFY(doc.filePath().isEmpty());
        QVERIFY(!doc.isDirty());
        QVERIFY(!doc.canUndo());
        QVERIFY(!doc.canRedo());
        QCOMPARE(doc.displayName(), QStringLiteral("fashion-mnist-mlp (unsaved)"));
        QCOMPARE(doc.layerCount(), 3);
        QVERIFY2(doc.validation().ok(), qPrintable(problems(doc)));
        QCOMPARE(doc.validation().totalParams, qint64(101770));

        // newDocument() after edits: back to the default, clean, no history.
        doc.set("/training/epochs", 9);
        QVERIFY(doc.isDirty());
        QSignalSpy dirty(&doc, &ExperimentDocument::dirtyChanged);
        QSignalSpy path(&doc, &ExperimentDocument::filePathChanged);
        doc.newDocument();
        QCOMPARE(doc.json(), ExperimentDocument::defaultExperiment());
        QVERIFY(!doc.isDirty());
        QVERIFY(!doc.canUndo());
        QCOMPARE(dirty.count(), 1);
        QCOMPARE(dirty.at(0).at(0).toBool(), false);
        QCOMPARE(path.count(), 1);
    }

    void loadGoodFile()
    {
        Json expected = ExperimentDocument::defaultExperiment();
        expected["name"] = "loaded";
        expected["training"]["epochs"] = 2;
        const QString file = writeText(m_dir, "good.strata.json", QByteArray::fromStdString(expected.dump(2)));

        ExperimentDocument doc;
        doc.set("/training/epochs", 7); // history and dirty state of the previous document go
        QSignalSpy path(&doc, &ExperimentDocument::filePathChanged);
        QSignalSpy changed(&doc, &ExperimentDocument::changed);
        QSignalSpy dirty(&doc, &ExperimentDocument::dirtyChanged);
        QString error;
        QVERIFY2(doc.load(file, &error), qPrintable(error));
        QVERIFY(error.isEmpty());
        QCOMPARE(doc.json(), expected);
        QCOMPARE(doc.filePath(), QFileInfo(file).absoluteFilePath());
        QCOMPARE(doc.baseDir(), QFileInfo(file).absolutePath());
        QCOMPARE(doc.displayName(), QStringLiteral("good.strata.json"));
        QVERIFY(!doc.isDirty());
        QVERIFY(!doc.canUndo());
        QCOMPARE(path.count(), 1);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(dirty.count(), 1);
        QVERIFY(doc.validation().ok());
    }

    void loadMissingFileChangesNothing()
    {
        ExperimentDocument doc;
        doc.set("/training/epochs", 7);
        const Json before = doc.json();
        QSignalSpy changed(&doc, &ExperimentDocument::changed);
        QSignalSpy path(&doc, &ExperimentDocument::filePathChanged);
        const QString missing = m_dir.filePath("no-such.strata.json");
        QString error;
        QVERIFY(!doc.load(missing, &error));
        QVERIFY2(error.contains(missing), qPrintable(error));
        QCOMPARE(doc.json(), before);
        QVERIFY(doc.isDirty());
        QVERIFY(doc.canUndo());
        QVERIFY(doc.filePath().isEmpty());
        QCOMPARE(changed.count(), 0);
        QCOMPARE(path.count(), 0);
    }

    void loadMalformedJsonNamesFileLineAndColumn()
    {
        // The second comma on line 3 is the error: line 3, column 15.
        const QString file = writeText(m_dir, "bad.strata.json", "{\n  \"strata\": 1,\n  \"name\": \"x\",,\n  \"seed\": 1\n}\n");
        ExperimentDocument doc;
        QString good;
        const QString goodFile = writeText(m_dir, "ok.strata.json",
                                           QByteArray::fromStdString(ExperimentDocument::defaultExperiment().dump()));
        QVERIFY(doc.load(goodFile, &good));
        doc.set("/seed", 5);
        const Json before = doc.json();
        QSignalSpy changed(&doc, &ExperimentDocument::changed);
        QString error;
        QVERIFY(!doc.load(file, &error));
        QVERIFY2(error.startsWith(file + ": not valid JSON at line 3, column 15: "),
                 qPrintable(error));
        QCOMPARE(doc.json(), before);
        QCOMPARE(doc.filePath(), QFileInfo(goodFile).absoluteFilePath());
        QVERIFY(doc.isDirty());
        QCOMPARE(changed.count(), 0);

        // JSON, but not an experiment.
        const QString array = writeText(m_dir, "array.strata.json", "[1, 2, 3]");
        QVERIFY(!doc.load(array, &error));
        QVERIFY2(error.contains(array) && error.contains("JSON object"), qPrintable(error));
        QCOMPARE(doc.json(), before);
    }

    void saveAsAndSaveRoundTrip()
    {
        ExperimentDocument doc;
        doc.set("/training/epochs", 3);
        QVERIFY(doc.isDirty());
        QString error;
        QVERIFY(!doc.save(&error)); // untitled: Save As first
        QVERIFY2(error.contains("Save As"), qPrintable(error));
        QVERIFY(doc.isDirty());

        const QString file = m_dir.filePath("roundtrip.strata.json");
        QSignalSpy path(&doc, &ExperimentDocument::filePathChanged);
        QSignalSpy dirty(&doc, &ExperimentDocument::dirtyChanged);
        QVERIFY2(doc.saveAs(file, &error), qPrintable(error));
        QCOMPARE(path.count(), 1);
        QCOMPARE(dirty.count(), 1);
        QCOMPARE(dirty.at(0).at(0).toBool(), false);
        QVERIFY(!doc.isDirty());
        QCOMPARE(doc.filePath(), QFileInfo(file).absoluteFilePath());
        QCOMPARE(doc.displayName(), QStringLiteral("roundtrip.strata.json"));
        QVERIFY(doc.canUndo()); // saving keeps the history

        ExperimentDocument reread;
        QVERIFY2(reread.load(file, &error), qPrintable(error));
        QCOMPARE(reread.json(), doc.json());
        QCOMPARE(reread.json()["training"]["epochs"].get<int>(), 3);

        // Edit, save in place.
        doc.set("/training/batch_size", 16);
        QVERIFY(doc.isDirty());
        path.clear();
        QVERIFY2(doc.save(&error), qPrintable(error));
        QVERIFY(!doc.isDirty());
        QCOMPARE(readJson(file)["training"]["batch_size"].get<int>(), 16);

        // Undo past the saved state is dirty; redo back to it is clean again.
        doc.undo();
        QVERIFY(doc.isDirty());
        doc.redo();
        QVERIFY(!doc.isDirty());

        // A file that cannot be written: false, the path named, nothing changed.
        doc.set("/seed", 1);
        const QString bad = m_dir.filePath("no-such-dir/x.strata.json");
        QVERIFY(!doc.saveAs(bad, &error));
        QVERIFY2(error.contains(bad), qPrintable(error));
        QVERIFY(doc.isDirty());
        QCOMPARE(doc.filePath(), QFileInfo(file).absoluteFilePath());
    }

    void saveAsElsewhereKeepsTheDocumentAsItIs_data()
    {
        QTest::addColumn<QByteArray>("document");
        // An unfinished experiment is saved as it is: no section appears, none is rejected.
        QTest::newRow("no data section") << QByteArray(R"({"strata": 1, "name": "draft", "training": {"epochs": 1}})");
        QTest::newRow("data without a source") << QByteArray(R"({"strata": 1, "name": "draft", "data": {"validation": "test"}})");
        QTest::newRow("data not an object") << QByteArray(R"({"strata": 1, "name": "draft", "data": "later"})");
        QTest::newRow("source in short form") << QByteArray(R"({"strata": 1, "name": "draft", "data": {"source": "fashion_mnist"}})");
    }

    void saveAsElsewhereKeepsTheDocumentAsItIs()
    {
        QFETCH(QByteArray, document);
        const Json json = Json::parse(document.toStdString());
        ExperimentDocument doc;
        doc.replace(json, "draft");
        QVERIFY(QDir(doc.baseDir()) != QDir(m_dir.path())); // a move: relative paths are rewritten
        const QString file = m_dir.filePath(QStringLiteral("draft-%1.strata.json").arg(QTest::currentDataTag()).replace(' ', '-'));
        QString error;
        QVERIFY2(doc.saveAs(file, &error), qPrintable(error));
        QCOMPARE(readJson(file), json);
        QCOMPARE(doc.json(), json);
    }

    void saveAsElsewhereKeepsRelativeDataPaths()
    {
        // The text example's data is "../data/reviews-*.tsv" next to the examples.
        ExperimentDocument doc;
        QString error;
        const QString example = QStringLiteral(STRATA_EXPERIMENTS_DIR "/text-embedding.strata.json");
        QVERIFY2(doc.newFromExample(example, &error), qPrintable(error));
        const QString train = canonical(QStringLiteral(STRATA_EXPERIMENTS_DIR "/../data/reviews-train.tsv"));
        QVERIFY(!train.isEmpty());
        doc.set("/training/epochs", 2);

        QTemporaryDir other;
        const QString file = QDir(other.path()).filePath("sub/moved.strata.json");
        QVERIFY(QDir().mkpath(QFileInfo(file).absolutePath()));
        QVERIFY2(doc.saveAs(file, &error), qPrintable(error));
        const Json saved = readJson(file);
        const QString written = QString::fromStdString(saved["data"]["source"]["train"].get<std::string>());
        QVERIFY2(QDir::isRelativePath(written), qPrintable(written));
        QCOMPARE(canonical(QDir(QFileInfo(file).absolutePath()).filePath(written)), train);
        QCOMPARE(canonical(QString::fromStdString(doc.forLaunch()["data"]["source"]["train"].get<std::string>())), train);

        // Undoing an edit made before the move must not bring back paths written for the
        // old directory.
        doc.undo();
        QCOMPARE(doc.json()["training"]["epochs"].get<int>(), 15);
        QCOMPARE(canonical(QString::fromStdString(doc.forLaunch()["data"]["source"]["train"].get<std::string>())), train);
        doc.redo();
        QCOMPARE(canonical(QString::fromStdString(doc.forLaunch()["data"]["source"]["test"].get<std::string>())),
                 canonical(QStringLiteral(STRATA_EXPERIMENTS_DIR "/../data/reviews-test.tsv")));
        QVERIFY(!doc.isDirty());
    }

    void saveAsElsewhereKeepsAModelFileReference()
    {
        QTemporaryDir a, b;
        Json json = ExperimentDocument::defaultExperiment();
        writeText(a, "model.json", QByteArray::fromStdString(json["model"].dump()));
        json["model"] = "model.json";
        ExperimentDocument doc;
        QString error;
        QVERIFY(doc.load(writeText(a, "exp.strata.json", QByteArray::fromStdString(json.dump())), &error));
        QVERIFY2(doc.validation().ok(), qPrintable(problems(doc)));
        QVERIFY2(doc.saveAs(QDir(b.path()).filePath("exp.strata.json"), &error), qPrintable(error));
        const QString model = QString::fromStdString(readJson(QDir(b.path()).filePath("exp.strata.json"))["model"].get<std::string>());
        QCOMPARE(canonical(QDir(b.path()).filePath(model)), canonical(a.filePath("model.json")));
        QVERIFY2(doc.validation().ok(), qPrintable(problems(doc)));
        QCOMPARE(doc.validation().totalParams, qint64(101770));
    }

    void setUndoRedo()
    {
        ExperimentDocument doc;
        QSignalSpy undoState(&doc, &ExperimentDocument::undoStateChanged);
        QSignalSpy changed(&doc, &ExperimentDocument::changed);
        doc.set("/training/epochs", 6);
        QCOMPARE(doc.value("/training/epochs"), Json(6));
        QVERIFY(doc.isDirty());
        QVERIFY(doc.canUndo());
        QCOMPARE(doc.undoLabel(), QStringLiteral("Change training.epochs"));
        QCOMPARE(undoState.count(), 1);
        QCOMPARE(changed.count(), 1);

        // Setting the value it already has is no edit.
        doc.set("/training/epochs", 6);
        QCOMPARE(changed.count(), 1);

        doc.undo();
        QCOMPARE(doc.value("/training/epochs"), Json(5));
        QVERIFY(!doc.isDirty());
        QVERIFY(!doc.canUndo());
        QVERIFY(doc.canRedo());
        QCOMPARE(doc.redoLabel(), QStringLiteral("Change training.epochs"));
        doc.redo();
        QCOMPARE(doc.value("/training/epochs"), Json(6));
        QVERIFY(doc.isDirty());
        QVERIFY(!doc.canRedo());

        // A new edit after an undo drops the redo branch.
        doc.undo();
        doc.set("/seed", 1);
        QVERIFY(!doc.canRedo());
        QCOMPARE(doc.value("/training/epochs"), Json(5));

        // A new field, and its removal.
        doc.set("/training/steps_per_epoch", 10);
        QCOMPARE(doc.value("/training/steps_per_epoch"), Json(10));
        doc.remove("/training/steps_per_epoch");
        QVERIFY(doc.value("/training/steps_per_epoch").is_null());
        QVERIFY(!doc.json()["training"].contains("steps_per_epoch"));
        doc.undo();
        QCOMPARE(doc.value("/training/steps_per_epoch"), Json(10));
        doc.undo();
        QVERIFY(!doc.json()["training"].contains("steps_per_epoch"));
        doc.undo();
        QCOMPARE(doc.json(), ExperimentDocument::defaultExperiment());
        QVERIFY(!doc.isDirty());
    }

    void removeListElements()
    {
        ExperimentDocument doc;
        doc.set("/training/metrics", Json{"accuracy", "mae"});
        doc.remove("/training/metrics/0");
        QCOMPARE(doc.value("/training/metrics"), (Json{"mae"}));
        QCOMPARE(doc.undoLabel(), QStringLiteral("Remove training.metrics.0"));
        doc.remove("/model/layers/1");
        QCOMPARE(doc.layerCount(), 2);
        QCOMPARE(doc.value("/model/layers/1/units"), Json(10));
        doc.undo();
        doc.undo();
        QCOMPARE(doc.value("/training/metrics"), (Json{"accuracy", "mae"}));
        QCOMPARE(doc.layerCount(), 3);
        // Nothing there, or the whole document: no edit.
        QSignalSpy changed(&doc, &ExperimentDocument::changed);
        doc.remove("/training/metrics/5");
        doc.remove("/training/metrics/-");
        doc.remove("/no/such/field");
        doc.remove("");
        QCOMPARE(changed.count(), 0);
    }

    void typingIsOneUndoStep()
    {
        ExperimentDocument doc;
        // Typing "128" into the batch size: one set() per key, within the merge window.
        doc.set("/training/batch_size", 1);
        doc.set("/training/batch_size", 12);
        doc.set("/training/batch_size", 128);
        QCOMPARE(doc.value("/training/batch_size"), Json(128));
        doc.undo();
        QCOMPARE(doc.value("/training/batch_size"), Json(32));
        QVERIFY(!doc.canUndo());
        doc.redo();
        QCOMPARE(doc.value("/training/batch_size"), Json(128));
        QVERIFY(!doc.canRedo());
    }

    void noMergeAcrossFieldsOrASave()
    {
        ExperimentDocument doc;
        doc.set("/training/epochs", 6);
        doc.set("/training/batch_size", 64);
        doc.set("/training/epochs", 7);
        doc.undo();
        QCOMPARE(doc.value("/training/epochs"), Json(6));
        QCOMPARE(doc.value("/training/batch_size"), Json(64));
        doc.undo();
        QCOMPARE(doc.value("/training/batch_size"), Json(32));
        doc.undo();
        QCOMPARE(doc.value("/training/epochs"), Json(5));
        QVERIFY(!doc.canUndo());

        // An edit right after a save is a step of its own: undo returns to the saved state.
        QString error;
        doc.set("/training/epochs", 6);
        QVERIFY2(doc.saveAs(m_dir.filePath("merge.strata.json"), &error), qPrintable(error));
        doc.set("/training/epochs", 8);
        QVERIFY(doc.isDirty());
        doc.undo();
        QCOMPARE(doc.value("/training/epochs"), Json(6));
        QVERIFY(!doc.isDirty());
    }

    void noMergeAfterTheWindow()
    {
        ExperimentDocument doc;
        doc.set("/training/epochs", 6);
        // The merge window is one second of wall time; nothing to wait on but the clock.
        QTest::qWait(1100);
        doc.set("/training/epochs", 7);
        doc.undo();
        QCOMPARE(doc.value("/training/epochs"), Json(6));
        doc.undo();
        QCOMPARE(doc.value("/training/epochs"), Json(5));
    }

    void setTypeKeepsTheListedSharedFields()
    {
        ExperimentDocument doc;
        doc.set("/strategy", Json{{"type", "Mirrored"}, {"devices", {"cpu:0", "cpu:1"}},
                                  {"cross_device_ops", "reduce_to_one_device"}, {"logical_cpu_devices", 2}});
        QSignalSpy undoState(&doc, &ExperimentDocument::undoStateChanged);
        doc.setType("/strategy", "CentralStorage", {"logical_cpu_devices", "parameter_device"});
        QCOMPARE(doc.value("/strategy"), (Json{{"type", "CentralStorage"}, {"logical_cpu_devices", 2}}));
        QCOMPARE(undoState.count(), 1);
        QCOMPARE(doc.undoLabel(), QStringLiteral("Change strategy to CentralStorage"));
        QVERIFY2(doc.validation().ok(), qPrintable(problems(doc)));
        doc.undo();
        QCOMPARE(doc.value("/strategy/devices"), (Json{"cpu:0", "cpu:1"}));
        QCOMPARE(doc.value("/strategy/type"), Json("Mirrored"));

        // The same type: nothing happens.
        doc.redo();
        undoState.clear();
        doc.setType("/strategy", "CentralStorage", {});
        QCOMPARE(undoState.count(), 0);
        QCOMPARE(doc.value("/strategy/logical_cpu_devices"), Json(2));

        // The optimizer: the learning rate is shared, momentum is not Adam's.
        doc.set("/training/optimizer", Json{{"type", "sgd"}, {"learning_rate", 0.05}, {"momentum", 0.9}});
        doc.setType("/training/optimizer", "adam", {"learning_rate"});
        QCOMPARE(doc.value("/training/optimizer"), (Json{{"type", "adam"}, {"learning_rate", 0.05}}));

        // From the short form ("optimizer": "adam").
        doc.set("/training/optimizer", "adam");
        QCOMPARE(doc.value("/training/optimizer/type"), Json("adam"));
        doc.setType("/training/optimizer", "rmsprop", {"learning_rate"});
        QCOMPARE(doc.value("/training/optimizer"), (Json{{"type", "rmsprop"}}));
        doc.setType("/training/optimizer", "rmsprop", {});
        QCOMPARE(doc.undoLabel(), QStringLiteral("Change training.optimizer to rmsprop"));
    }

    void insertLayerFillsUsualValues_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QByteArray>("expected");
        QTest::newRow("Dense") << "Dense" << QByteArray(R"({"type": "Dense", "units": 32})");
        QTest::newRow("Conv2D") << "Conv2D"
                                << QByteArray(R"({"type": "Conv2D", "filters": 32, "kernel_size": 3, "activation": "relu"})");
        QTest::newRow("Dropout") << "Dropout" << QByteArray(R"({"type": "Dropout", "rate": 0.5})");
        QTest::newRow("Embedding") << "Embedding" << QByteArray(R"({"type": "Embedding", "input_dim": 1000, "output_dim": 16})");
        QTest::newRow("Activation") << "Activation" << QByteArray(R"({"type": "Activation", "activation": "relu"})");
        QTest::newRow("MaxPooling2D") << "MaxPooling2D" << QByteArray(R"({"type": "MaxPooling2D"})");
        QTest::newRow("Flatten") << "Flatten" << QByteArray(R"({"type": "Flatten"})");
        QTest::newRow("Conv1D") << "Conv1D"
                                << QByteArray(R"({"type": "Conv1D", "filters": 32, "kernel_size": 3, "activation": "relu"})");
        QTest::newRow("Reshape") << "Reshape" << QByteArray(R"({"type": "Reshape", "target_shape": [-1]})");
        QTest::newRow("AveragePooling2D") << "AveragePooling2D" << QByteArray(R"({"type": "AveragePooling2D"})");
        QTest::newRow("GlobalAveragePooling2D") << "GlobalAveragePooling2D"
                                                << QByteArray(R"({"type": "GlobalAveragePooling2D"})");
        QTest::newRow("GlobalMaxPooling1D") << "GlobalMaxPooling1D" << QByteArray(R"({"type": "GlobalMaxPooling1D"})");
        QTest::newRow("GlobalMaxPooling2D") << "GlobalMaxPooling2D" << QByteArray(R"({"type": "GlobalMaxPooling2D"})");
        QTest::newRow("LayerNormalization") << "LayerNormalization" << QByteArray(R"({"type": "LayerNormalization"})");
        QTest::newRow("ZeroPadding2D") << "ZeroPadding2D" << QByteArray(R"({"type": "ZeroPadding2D"})");
        QTest::newRow("LSTM") << "LSTM" << QByteArray(R"({"type": "LSTM", "units": 32})");
        QTest::newRow("GRU") << "GRU" << QByteArray(R"({"type": "GRU", "units": 32})");
    }

    void insertLayerFillsUsualValues()
    {
        QFETCH(QString, type);
        QFETCH(QByteArray, expected);
        ExperimentDocument doc;
        doc.insertLayer(2, type);
        QCOMPARE(doc.layerCount(), 4);
        QCOMPARE(doc.value("/model/layers/2"), Json::parse(expected.toStdString()));
        QCOMPARE(doc.undoLabel(), QStringLiteral("Add %1 layer").arg(type));
        // Every field the layer requires is filled: a model made of it, Flatten and Dense
        // validates (on an input the layer takes).
        const Json input = type == "Conv2D" || type.endsWith("Pooling2D") || type == "ZeroPadding2D" ? Json{28, 28, 1}
                           : type == "Embedding"                      ? Json{20}
                                                                      : Json{28, 28};
        doc.set("/model", Json{{"input_shape", input},
                               {"layers", {doc.value("/model/layers/2"), {{"type", "Flatten"}}, {{"type", "Dense"}, {"units", 10}}}}});
        QVERIFY2(doc.validation().ok(), qPrintable(problems(doc)));
        doc.undo();
        doc.undo();
        QCOMPARE(doc.json(), ExperimentDocument::defaultExperiment());
    }

    void insertLayerIndexIsClamped()
    {
        ExperimentDocument doc;
        doc.insertLayer(99, QStringLiteral("Dropout"));
        QCOMPARE(doc.value("/model/layers/3/type"), Json("Dropout"));
        doc.insertLayer(-4, QStringLiteral("Flatten"));
        QCOMPARE(doc.layerCount(), 5);
        QCOMPARE(doc.value("/model/layers/0/type"), Json("Flatten"));
        QCOMPARE(doc.value("/model/layers/1/type"), Json("Flatten"));
        // A new Dense(32) after Flatten changes the parameter count the validation reports.
        doc.undo();
        doc.undo();
        doc.insertLayer(1, QStringLiteral("Dense"));
        QCOMPARE(doc.validation().totalParams, qint64(784 * 32 + 32 + 32 * 128 + 128 + 128 * 10 + 10));
    }

    void removeAndMoveLayersWithUndo()
    {
        ExperimentDocument doc;
        const Json original = doc.value("/model/layers");
        doc.removeLayer(1);
        QCOMPARE(doc.layerCount(), 2);
        QCOMPARE(doc.value("/model/layers/1/units"), Json(10));
        QCOMPARE(doc.undoLabel(), QStringLiteral("Remove layer"));
        QCOMPARE(doc.validation().totalParams, qint64(784 * 10 + 10));
        doc.undo();
        QCOMPARE(doc.value("/model/layers"), original);
        QCOMPARE(doc.validation().totalParams, qint64(101770));

        doc.moveLayer(0, 2);
        QCOMPARE(doc.value("/model/layers/0/units"), Json(128));
        QCOMPARE(doc.value("/model/layers/1/units"), Json(10));
        QCOMPARE(doc.value("/model/layers/2/type"), Json("Flatten"));
        QCOMPARE(doc.undoLabel(), QStringLiteral("Move layer"));
        doc.moveLayer(2, 1);
        QCOMPARE(doc.value("/model/layers/1/type"), Json("Flatten"));
        doc.undo();
        doc.undo();
        QCOMPARE(doc.value("/model/layers"), original);
        QVERIFY(!doc.isDirty());

        // Out of range: no edit, no history.
        QSignalSpy changed(&doc, &ExperimentDocument::changed);
        doc.removeLayer(3);
        doc.removeLayer(-1);
        doc.moveLayer(0, 3);
        doc.moveLayer(-1, 0);
        doc.moveLayer(1, 1);
        QCOMPARE(changed.count(), 0);
        QVERIFY(!doc.canUndo());
    }

    void qtTypedAccessors()
    {
        ExperimentDocument doc;
        const QVariant epochs = doc.get("/training/epochs");
        QCOMPARE(epochs.typeId(), int(QMetaType::LongLong));
        QCOMPARE(epochs.toLongLong(), 5);
        QCOMPARE(doc.get("/training/optimizer/learning_rate").typeId(), int(QMetaType::Double));
        QCOMPARE(doc.get("/training/optimizer/learning_rate").toDouble(), 0.001);
        QCOMPARE(doc.get("/training/loss/from_logits").typeId(), int(QMetaType::Bool));
        QCOMPARE(doc.get("/training/loss/from_logits").toBool(), true);
        QCOMPARE(doc.get("/name").toString(), QStringLiteral("fashion-mnist-mlp"));
        QCOMPARE(doc.get("/training/metrics").toList(), QVariantList{QStringLiteral("accuracy")});
        QCOMPARE(doc.get("/model/input_shape").toList(), (QVariantList{qlonglong(28), qlonglong(28)}));
        const QVariantMap strategy = doc.get("/strategy").toMap();
        QCOMPARE(strategy.value("type").toString(), QStringLiteral("OneDevice"));
        QCOMPARE(strategy.value("device").toString(), QStringLiteral("cpu:0"));
        QVERIFY(!doc.get("/training/steps_per_epoch").isValid());

        doc.setValue("/training/epochs", 7); // int
        QVERIFY(doc.value("/training/epochs").is_number_integer());
        QCOMPARE(doc.value("/training/epochs"), Json(7));
        doc.setValue("/training/steps_per_epoch", QVariant::fromValue<qlonglong>(100));
        QCOMPARE(doc.value("/training/steps_per_epoch"), Json(100));
        doc.setValue("/training/optimizer/learning_rate", 0.01);
        QVERIFY(doc.value("/training/optimizer/learning_rate").is_number_float());
        QCOMPARE(doc.value("/training/optimizer/learning_rate").get<double>(), 0.01);
        doc.setValue("/data/shuffle", false);
        QCOMPARE(doc.value("/data/shuffle"), Json(false));
        doc.setValue("/training/metrics", QStringList{"accuracy", "mae"});
        QCOMPARE(doc.value("/training/metrics"), (Json{"accuracy", "mae"}));
        doc.setValue("/training/checkpoint", QVariantMap{{"every_steps", 50}, {"enabled", true}});
        QCOMPARE(doc.value("/training/checkpoint"), (Json{{"enabled", true}, {"every_steps", 50}}));
        doc.setValue("/model/input_shape", QVariantList{28, 28, 1});
        QCOMPARE(doc.value("/model/input_shape"), (Json{28, 28, 1}));
        doc.setValue("/description", QStringLiteral("ünïcode ✓"));
        QCOMPARE(doc.get("/description").toString(), QStringLiteral("ünïcode ✓"));
        // An invalid QVariant removes the field (back to its default).
        doc.setValue("/training/steps_per_epoch", QVariant());
        QVERIFY(!doc.json()["training"].contains("steps_per_epoch"));
        QVERIFY2(doc.validation().ok(), qPrintable(problems(doc)));

        // Layers.
        QCOMPARE(doc.layer(1).value("units").toLongLong(), 128);
        QCOMPARE(doc.layer(1).value("activation").toString(), QStringLiteral("relu"));
        doc.setLayerField(1, "units", 64);
        QCOMPARE(doc.value("/model/layers/1/units"), Json(64));
        doc.setLayerField(1, "activation", QVariant());
        QVERIFY(!doc.layer(1).contains("activation"));
        QCOMPARE(doc.validation().layers[1].params, qint64(784 * 64 + 64));

        // A field of a value written in short form expands it.
        doc.set("/training/optimizer", "sgd");
        QCOMPARE(doc.get("/training/optimizer/type").toString(), QStringLiteral("sgd"));
        doc.setValue("/training/optimizer/momentum", 0.9);
        QCOMPARE(doc.value("/training/optimizer"), (Json{{"type", "sgd"}, {"momentum", 0.9}}));
        QVERIFY2(doc.validation().ok(), qPrintable(problems(doc)));
    }

    void newFromExampleIsUntitledAndKeepsRelativePaths()
    {
        const QString example = QStringLiteral(STRATA_EXPERIMENTS_DIR "/text-embedding.strata.json");
        ExperimentDocument doc;
        doc.set("/seed", 3);
        QSignalSpy path(&doc, &ExperimentDocument::filePathChanged);
        QString error;
        QVERIFY2(doc.newFromExample(example, &error), qPrintable(error));
        QVERIFY(path.count() >= 1);
        QVERIFY(doc.filePath().isEmpty());
        QVERIFY(!doc.isDirty());
        QVERIFY(!doc.canUndo());
        QCOMPARE(doc.displayName(), QStringLiteral("text-embedding (unsaved)"));
        QCOMPARE(QDir(doc.baseDir()), QDir(STRATA_EXPERIMENTS_DIR));
        QCOMPARE(doc.json()["data"]["source"]["train"].get<std::string>(), std::string("../data/reviews-train.tsv"));
        QVERIFY2(doc.validation().ok(), qPrintable(problems(doc)));
        const Json launch = doc.forLaunch();
        const QString train = QString::fromStdString(launch["data"]["source"]["train"].get<std::string>());
        QVERIFY(QDir::isAbsolutePath(train));
        QVERIFY2(QFileInfo::exists(train), qPrintable(train));
        QCOMPARE(canonical(train), canonical(QStringLiteral(STRATA_EXPERIMENTS_DIR "/../data/reviews-train.tsv")));
        // Save needs a name; the example itself is never overwritten.
        QVERIFY(!doc.save(&error));

        QVERIFY(!doc.newFromExample(m_dir.filePath("missing.strata.json"), &error));
        QVERIFY(error.contains("missing.strata.json"));
        QCOMPARE(doc.json()["name"].get<std::string>(), std::string("text-embedding"));
    }

    void forLaunchMakesDataPathsAbsolute()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("data"));
        Json json = ExperimentDocument::defaultExperiment();
        json["data"]["source"] = {{"type", "idx"},
                                  {"train_images", "data/train-images"},
                                  {"train_labels", "./data/train-labels"},
                                  {"test_images", "/abs/t10k-images"},
                                  {"test_labels", "~/t10k-labels"}};
        const QString file = writeText(dir, "idx.strata.json", QByteArray::fromStdString(json.dump()));
        ExperimentDocument doc;
        QString error;
        QVERIFY2(doc.load(file, &error), qPrintable(error));
        const Json launch = doc.forLaunch();
        const Json& source = launch["data"]["source"];
        const QString base = QFileInfo(file).absolutePath();
        QCOMPARE(QString::fromStdString(source["train_images"].get<std::string>()), base + "/data/train-images");
        QCOMPARE(QString::fromStdString(source["train_labels"].get<std::string>()), base + "/data/train-labels");
        QCOMPARE(QString::fromStdString(source["test_images"].get<std::string>()), QStringLiteral("/abs/t10k-images"));
        QCOMPARE(QString::fromStdString(source["test_labels"].get<std::string>()),
                 QDir::homePath() + "/t10k-labels");
        // The document itself is untouched.
        QCOMPARE(doc.json(), json);
        QVERIFY(!doc.isDirty());

        // The default Fashion-MNIST directory is spelled out, and a model kept in a file
        // beside the document travels inline.
        ExperimentDocument fm;
        QCOMPARE(fm.forLaunch()["data"]["source"]["dir"].get<std::string>(), std::string("/usr/share/datasets/fashion-mnist"));
        Json withModelFile = ExperimentDocument::defaultExperiment();
        writeText(dir, "model.json", QByteArray::fromStdString(withModelFile["model"].dump()));
        withModelFile["model"] = "model.json";
        QVERIFY(doc.load(writeText(dir, "m.strata.json", QByteArray::fromStdString(withModelFile.dump())), &error));
        const Json model = doc.forLaunch()["model"];
        QVERIFY(model.is_object());
        QCOMPARE(model["layers"].size(), size_t(3));
    }

    void importKerasModel()
    {
        const QString file = writeText(m_dir, "keras-mlp.json", kKerasMlp);
        ExperimentDocument doc;
        const Json before = doc.json();
        QSignalSpy validation(&doc, &ExperimentDocument::validationChanged);
        QString error;
        QVERIFY2(doc.importKerasModel(file, &error), qPrintable(error));
        QCOMPARE(doc.layerCount(), 4);
        QCOMPARE(doc.value("/model/input_shape"), (Json{28, 28}));
        QCOMPARE(doc.value("/model/layers/1/type"), Json("Dense"));
        QCOMPARE(doc.value("/model/layers/1/units"), Json(64));
        QCOMPARE(doc.value("/model/layers/1/activation"), Json("relu"));
        QCOMPARE(doc.value("/model/layers/2/type"), Json("Dropout"));
        QCOMPARE(doc.value("/model/layers/2/rate"), Json(0.2));
        QCOMPARE(doc.value("/model/layers/3/activation"), Json("softmax"));
        QCOMPARE(doc.value("/model/layers/3/name"), Json("dense_1"));
        // The rest of the experiment stays.
        QCOMPARE(doc.value("/training"), before["training"]);
        QCOMPARE(doc.value("/data"), before["data"]);
        QVERIFY(validation.count() >= 1);
        QVERIFY2(doc.validation().ok(), qPrintable(problems(doc)));
        QCOMPARE(doc.validation().totalParams, qint64(784 * 64 + 64 + 64 * 10 + 10));
        QVERIFY(doc.isDirty());
        QCOMPARE(doc.undoLabel(), QStringLiteral("Import Keras model"));
        doc.undo();
        QCOMPARE(doc.json(), before);
    }

    void importKerasModelRefusesBadFiles_data()
    {
        QTest::addColumn<QByteArray>("text"); // empty: no file
        QTest::addColumn<QString>("reason");
        QTest::newRow("missing file") << QByteArray() << "cannot open";
        QTest::newRow("not JSON") << QByteArray("{\"class_name\": \"Sequential\",\n  oops}") << ":2:";
        QTest::newRow("a functional model") << QByteArray(R"({"class_name": "Functional", "config": {"layers": []}})")
                                            << "only Keras Sequential models";
        QTest::newRow("no layers") << QByteArray(R"({"class_name": "Sequential", "config": {"layers": []}})")
                                   << "at least one layer";
        QTest::newRow("a layer that is not an object")
            << QByteArray(R"({"class_name": "Sequential", "config": {"layers": [3]}})") << "model.config.layers[0]: must be a Keras layer";
        QTest::newRow("layers not a list")
            << QByteArray(R"({"class_name": "Sequential", "config": {"name": 4, "layers": {"a": 1}}})") << "model.config.name: must be a string, got number 4";
        QTest::newRow("an unsupported layer")
            << QByteArray(R"({"class_name": "Sequential", "config": {"layers": [
                {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 8]}},
                {"class_name": "SimpleRNN", "config": {"name": "simple_rnn", "units": 4}}]}})")
            << "SimpleRNN";
    }

    void importKerasModelRefusesBadFiles()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, reason);
        const QString file = text.isNull() ? m_dir.filePath("no-such-model.json")
                                           : writeText(m_dir, "bad-keras.json", text);
        ExperimentDocument doc;
        doc.set("/seed", 8);
        const Json before = doc.json();
        QSignalSpy changed(&doc, &ExperimentDocument::changed);
        QString error;
        QVERIFY(!doc.importKerasModel(file, &error));
        QVERIFY2(error.contains(file), qPrintable(error));
        QVERIFY2(error.contains(reason), qPrintable(error));
        QCOMPARE(doc.json(), before);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(doc.undoLabel(), QStringLiteral("Change seed"));
    }

    void examplesListTheShippedExperiments()
    {
        const auto examples = ExperimentDocument::examples();
        const QStringList shipped =
            QDir(STRATA_EXPERIMENTS_DIR).entryList({"*.strata.json"}, QDir::Files, QDir::Name);
        QVERIFY(shipped.size() >= 5);
        QCOMPARE(int(examples.size()), int(shipped.size()));
        QStringList names;
        for (const auto& [name, path] : examples) {
            names << name;
            QCOMPARE(canonical(QFileInfo(path).absolutePath()), canonical(STRATA_EXPERIMENTS_DIR));
            QCOMPARE(QFileInfo(path).fileName(), name + ".strata.json");
            ExperimentDocument doc;
            QString error;
            QVERIFY2(doc.newFromExample(path, &error), qPrintable(error));
            // Valid, but for data this machine may not have (CIFAR-10 is no Debian package):
            // validation checks the data is here before a launch.
            for (const Problem& p : doc.validation().problems)
                QVERIFY2(p.path.startsWith("data.source") && p.message.contains("not found"),
                         qPrintable(path + ":\n" + problems(doc)));
        }
        QVERIFY(names.contains("fashion-mnist-mlp"));
        QVERIFY(names.contains("text-embedding"));
    }

    void validationFollowsEveryChange()
    {
        ExperimentDocument doc;
        QSignalSpy validation(&doc, &ExperimentDocument::validationChanged);
        doc.set("/training/optimizer/learning_rate", -1);
        QCOMPARE(validation.count(), 1);
        QVERIFY(!doc.validation().ok());
        QCOMPARE(doc.validation().problems.at(0).path, QStringLiteral("training.optimizer.learning_rate"));
        doc.undo();
        QCOMPARE(validation.count(), 2);
        QVERIFY(doc.validation().ok());
        doc.redo();
        QCOMPARE(validation.count(), 3);
        QVERIFY(!doc.validation().ok());
        doc.undo();

        // The host matters: a device it does not have.
        doc.set("/strategy/device", "cpu:3");
        QVERIFY(doc.validation().ok()); // host unknown: not checked
        validation.clear();
        doc.setHost({2, 0, true});
        QCOMPARE(validation.count(), 1);
        QVERIFY(!doc.validation().ok());
        QCOMPARE(doc.validation().problems.at(0).path, QStringLiteral("strategy.device"));

        // Mirrored on that host: two replicas, the global batch doubles.
        doc.setType("/strategy", "Mirrored");
        QVERIFY(doc.validation().ok());
        QCOMPARE(doc.validation().replicas, 2);
        QCOMPARE(doc.validation().globalBatch, qint64(64));

        validation.clear();
        doc.insertLayer(1, QStringLiteral("Dense"));
        doc.removeLayer(1);
        doc.moveLayer(1, 2);
        doc.setLayerField(0, "name", "flat");
        QCOMPARE(validation.count(), 4);
        QCOMPARE(doc.validation().layers[0].name, QStringLiteral("flat"));
    }
};

QTEST_GUILESS_MAIN(TestExperimentDocument)
#include "tst_experiment_document.moc"
