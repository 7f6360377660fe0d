// The experiment document: reading, validation with field paths, JSON errors with line and
// column, round trip, the shipped examples, and the defaults the table gives absent fields.

#include "strata/schema/defaults.h"
#include "strata/schema/experiment.h"

#include <QtTest>

#include <fstream>
#include <set>

using namespace strata::schema;

namespace {

Json minimal()
{
    return Json::parse(R"({
      "name": "t", "seed": 7,
      "model": {"input_shape": [4], "layers": [{"type": "Dense", "units": 2}]},
      "data": {"source": {"type": "synthetic", "task": "classification", "features": 4}},
      "training": {"epochs": 2, "batch_size": 8}
    })");
}

QStringList problemsOf(const Json& doc)
{
    try {
        parseExperiment(doc, "/tmp");
    } catch (const strata::ConfigError& e) {
        QStringList out;
        for (const auto& p : e.problems())
            out << QString::fromStdString(p.str());
        return out;
    }
    return {};
}

} // namespace

class TestExperiment : public QObject {
    Q_OBJECT

private slots:
    void readsWithDefaults()
    {
        const Experiment e = parseExperiment(minimal(), "/base");
        QCOMPARE(e.name, std::string("t"));
        QCOMPARE(e.seed, uint64_t(7));
        QCOMPARE(e.strategy.type, std::string("OneDevice"));
        QCOMPARE(e.strategy.device, std::string("cpu:0"));
        QCOMPARE(e.training.optimizer.type, std::string("adam"));
        QCOMPARE(e.training.optimizer.learningRate, 0.001);
        QCOMPARE(e.training.loss.type, std::string("sparse_categorical_crossentropy"));
        QCOMPARE(e.data.source.noise, 1.0);
        QVERIFY(e.training.checkpoint.enabled);
        QCOMPARE(e.training.checkpoint.everyEpochs, int64_t(1));
    }

    // Every field the document leaves out is read as the table says, also the defaults that
    // depend on another setting.
    void absentFieldsTakeTheTablesDefaults()
    {
        Json doc = minimal();
        doc.erase("seed");
        doc["training"] = Json::object();
        doc["data"]["source"] = {{"type", "synthetic"}};
        const Experiment e = parseExperiment(doc, "/base");
        QCOMPARE(e.seed, uint64_t(defaultInteger("seed")));
        QCOMPARE(e.training.epochs, defaultInteger("training.epochs"));
        QCOMPARE(e.training.batchSize, defaultInteger("training.batch_size"));
        QCOMPARE(e.training.stepsPerEpoch, defaultInteger("training.steps_per_epoch"));
        QCOMPARE(e.training.threads, defaultInteger("training.threads"));
        QCOMPARE(e.training.lrScaling, std::string(defaultText("training.lr_scaling")));
        QCOMPARE(e.training.precision, std::string(defaultText("training.precision")));
        QCOMPARE(e.training.metrics, namesOf(defaultNames("training.metrics")));
        QCOMPARE(e.training.loss.fromLogits, defaultFlag("training.loss.from_logits"));
        QCOMPARE(e.training.optimizer.learningRate, defaultNumber("training.optimizer.learning_rate", "adam"));
        QCOMPARE(e.training.checkpoint.everySteps, defaultInteger("training.checkpoint.every_steps"));
        QCOMPARE(e.data.validation, std::string(defaultText("data.validation")));
        QCOMPARE(e.data.shuffle, defaultFlag("data.shuffle"));
        QCOMPARE(e.data.prefetch, defaultInteger("data.prefetch"));
        QCOMPARE(e.data.shardPolicy, std::string(defaultText("data.shard_policy")));
        QCOMPARE(e.data.evaluateTest, defaultFlag("data.evaluate_test"));
        QCOMPARE(e.data.source.task, std::string(defaultText("data.source.task")));
        QCOMPARE(e.data.source.samples, defaultInteger("data.source.samples"));
        QCOMPARE(e.data.source.noise, defaultNumber("data.source.noise", "regression"));
        QCOMPARE(e.strategy.type, std::string(defaultText("strategy.type")));
        QCOMPARE(e.strategy.device, std::string(defaultText("strategy.device")));
        QCOMPARE(e.cluster.nodes.front().sshPort, defaultInteger("cluster.nodes.ssh_port"));
        QCOMPARE(e.cluster.stopUnattendedSeconds, defaultInteger("cluster.stop_unattended_seconds"));

        doc["training"]["optimizer"] = "sgd";
        doc["data"]["source"]["task"] = "classification";
        doc["strategy"] = {{"type", "MultiWorkerMirrored"}};
        const Experiment sgd = parseExperiment(doc, "/base");
        QCOMPARE(sgd.training.optimizer.learningRate, defaultNumber("training.optimizer.learning_rate", "sgd"));
        QCOMPARE(sgd.data.source.noise, defaultNumber("data.source.noise", "classification"));
        QCOMPARE(sgd.strategy.timeoutSeconds, defaultNumber("strategy.timeout_seconds", "MultiWorkerMirrored"));
        QCOMPARE(sgd.strategy.bucketBytes, defaultInteger("strategy.bucket_bytes"));
        QVERIFY(!sgd.strategy.bucketBytesAuto);
        // "auto": tuned from the default (docs/tuning.md), and written back as it was read.
        doc["strategy"]["bucket_bytes"] = "auto";
        const Experiment tuned = parseExperiment(doc, "/base");
        QVERIFY(tuned.strategy.bucketBytesAuto);
        QCOMPARE(tuned.strategy.bucketBytes, defaultInteger("strategy.bucket_bytes"));
        QCOMPARE(experimentToJson(tuned)["strategy"]["bucket_bytes"], Json("auto"));

        doc["strategy"] = {{"type", "ParameterServer"}, {"partitioner", {{"type", "MinSize"}}}};
        doc["cluster"] = Json::parse(R"({"nodes": [{"name": "local", "host": "localhost"}],
            "tasks": [{"type": "chief", "node": "local"}, {"type": "worker", "node": "local"},
                      {"type": "ps", "node": "local"}]})");
        const Experiment ps = parseExperiment(doc, "/base");
        QCOMPARE(ps.strategy.timeoutSeconds, defaultNumber("strategy.timeout_seconds", "ParameterServer"));
        QCOMPARE(ps.strategy.maxStaleness, defaultInteger("strategy.max_staleness"));
        QCOMPARE(ps.strategy.partitioner.maxShards, defaultInteger("strategy.partitioner.max_shards", "MinSize"));
        QCOMPARE(ps.strategy.partitioner.minShardBytes, defaultInteger("strategy.partitioner.min_shard_bytes"));
    }

    // The dataset directory of the table, under STRATA_DATASETS_DIR when that is set.
    void defaultDatasetDirectory()
    {
        Json doc = minimal();
        doc["data"]["source"] = {{"type", "fashion_mnist"}};
        const QByteArray saved = qgetenv("STRATA_DATASETS_DIR");
        qunsetenv("STRATA_DATASETS_DIR");
        QCOMPARE(parseExperiment(doc, "/base").data.source.dir, std::string(defaultText("data.source.dir", "fashion_mnist")));
        qputenv("STRATA_DATASETS_DIR", "/carried");
        QCOMPARE(parseExperiment(doc, "/base").data.source.dir, std::string("/carried/fashion-mnist"));
        if (saved.isNull())
            qunsetenv("STRATA_DATASETS_DIR");
        else
            qputenv("STRATA_DATASETS_DIR", saved);
    }

    // One row per field and setting value, and a lookup that falls back to the row for any value.
    void theTableHasOneRowPerFieldAndSetting()
    {
        std::set<std::pair<std::string_view, std::string_view>> rows;
        for (const FieldDefault& d : kFieldDefaults)
            QVERIFY2(rows.insert({d.field, d.when}).second, std::string(d.field).c_str());
        QCOMPARE(findFieldDefault("training.optimizer.learning_rate", "rmsprop")->when, std::string_view());
        QCOMPARE(findFieldDefault("training.optimizer.learning_rate", "sgd")->when, std::string_view("sgd"));
        QVERIFY(!findFieldDefault("training.no_such_field"));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, (void)defaultWhen<double>("training.no_such_field", ""));
    }

    void stringShorthands()
    {
        Json doc = minimal();
        doc["strategy"] = "Default";
        doc["training"]["loss"] = "mean_squared_error";
        doc["training"]["optimizer"] = "sgd";
        doc["training"]["metrics"] = {"mae"};
        doc["model"]["layers"][0]["units"] = 1;
        const Experiment e = parseExperiment(doc, "/");
        QCOMPARE(e.strategy.type, std::string("Default"));
        QCOMPARE(e.training.loss.type, std::string("mse"));
        QCOMPARE(e.training.optimizer.learningRate, 0.01); // Keras' SGD default
    }

    void problemsNameTheirFields_data()
    {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("expected");
        QTest::newRow("negative lr") << "/training/optimizer" << R"({"type": "adam", "learning_rate": -1})"
                                     << "training.optimizer.learning_rate: must be greater than 0, got -1";
        QTest::newRow("initial weights not a path") << "/training/initial_weights" << "true"
                                                    << "training.initial_weights: must be a string, got boolean true";
        QTest::newRow("unknown optimizer") << "/training/optimizer" << R"("adamw")"
                                           << "training.optimizer: unknown value \"adamw\" (did you mean \"adam\"?)";
        QTest::newRow("unknown loss") << "/training/loss" << R"({"type": "cross_entropy"})" << "training.loss.type: unknown value";
        QTest::newRow("from_logits on mse") << "/training/loss" << R"({"type": "mse", "from_logits": true})"
                                            << "training.loss.from_logits: does not apply to mse";
        QTest::newRow("zero batch") << "/training/batch_size" << "0" << "training.batch_size: must be between 1";
        QTest::newRow("batch not int") << "/training/batch_size" << "32.5" << "training.batch_size: must be an integer";
        QTest::newRow("bad metric") << "/training/metrics" << R"(["accuracy", "f1"])" << "training.metrics[1]: unknown value \"f1\"";
        QTest::newRow("unknown top field") << "/epochs" << "3" << "epochs: unknown field";
        QTest::newRow("unknown training field") << "/training/epoch" << "3" << "training.epoch: unknown field (did you mean \"epochs\"?)";
        QTest::newRow("unknown source") << "/data/source" << R"({"type": "imagenet"})" << "data.source.type: unknown value \"imagenet\"";
        QTest::newRow("idx without labels") << "/data/source" << R"({"type": "idx", "train_images": "a"})"
                                            << "data.source.train_labels: is required";
        QTest::newRow("split without fraction") << "/data/validation" << R"("split")" << "data.validation_split: must be between 0 and 1";
        QTest::newRow("bad device") << "/strategy" << R"({"type": "OneDevice", "device": "tpu:0"})"
                                    << "strategy.device: unknown device \"tpu:0\"";
        QTest::newRow("partitioner unknown") << "/strategy" << R"({"type": "ParameterServer", "partitioner": {"type": "Fixed"}})"
                                             << "strategy.partitioner.type: unknown value \"Fixed\"; expected one of: FixedShards, MinSize, MaxSize";
        QTest::newRow("fixed shards without count")
            << "/strategy" << R"({"type": "ParameterServer", "partitioner": {"type": "FixedShards"}})"
            << "strategy.partitioner.num_shards: is required for FixedShards";
        QTest::newRow("max size without bytes")
            << "/strategy" << R"({"type": "ParameterServer", "partitioner": {"type": "MaxSize", "max_shards": 2}})"
            << "strategy.partitioner.max_shard_bytes: is required for MaxSize";
        QTest::newRow("negative staleness") << "/strategy" << R"({"type": "ParameterServer", "max_staleness": -2})"
                                            << "strategy.max_staleness: must be between -1";
        QTest::newRow("tiny bucket") << "/strategy" << R"({"type": "MultiWorkerMirrored", "bucket_bytes": 10})"
                                     << "strategy.bucket_bytes: must be between 1024 and 4294967296, got 10";
        QTest::newRow("bucket word") << "/strategy" << R"({"type": "MultiWorkerMirrored", "bucket_bytes": "fast"})"
                                     << "strategy.bucket_bytes: unknown value \"fast\"";
        QTest::newRow("no timeout") << "/strategy" << R"({"type": "MultiWorkerMirrored", "timeout_seconds": 0})"
                                    << "strategy.timeout_seconds: must be between 0.1 and 86400, got 0";
        QTest::newRow("multi-worker devices twice")
            << "/strategy" << R"({"type": "MultiWorkerMirrored", "devices": ["cpu:0", "cpu:0"]})"
            << "strategy.devices[1]: cpu:0 is listed twice";
        QTest::newRow("tpu without fallback") << "/strategy" << R"({"type": "TPU"})"
                                              << "strategy.type: there is no TPU on this machine";
        QTest::newRow("device twice") << "/strategy" << R"({"type": "Mirrored", "devices": ["cpu:0", "cpu:0"]})"
                                      << "strategy.devices[1]: cpu:0 is listed twice";
        QTest::newRow("mixed kinds") << "/strategy" << R"({"type": "Mirrored", "devices": ["cpu:0", "gpu:0"]})"
                                     << "strategy.devices[1]: replicas must be all CPUs or all GPUs";
        QTest::newRow("beyond logical devices") << "/strategy" << R"({"type": "Mirrored", "devices": ["cpu:0", "cpu:2"], "logical_cpu_devices": 2})"
                                                << "strategy.devices[1]: cpu:2 does not exist: logical_cpu_devices is 2";
        QTest::newRow("empty device list") << "/strategy" << R"({"type": "CentralStorage", "compute_devices": []})"
                                           << "strategy.compute_devices: must be a non-empty list";
        QTest::newRow("option of another strategy") << "/strategy" << R"({"type": "OneDevice", "devices": ["cpu:0"]})"
                                                    << "strategy.devices: unknown field (did you mean \"device\"?)";
        QTest::newRow("bad cross device ops") << "/strategy" << R"({"type": "Mirrored", "cross_device_ops": "nccl"})"
                                              << "strategy.cross_device_ops: unknown value \"nccl\"";
        QTest::newRow("bad lr scaling") << "/training/lr_scaling" << R"("sqrt")" << "training.lr_scaling: unknown value \"sqrt\"";
        QTest::newRow("unknown strategy") << "/strategy" << R"("Mirored")" << "strategy: unknown value \"Mirored\" (did you mean \"Mirrored\"?)";
        QTest::newRow("future format") << "/strata" << "99" << "strata: format version 99 is newer";
        QTest::newRow("shapes") << "/model/layers/0" << R"({"type": "Conv2D", "filters": 2, "kernel_size": 3})"
                                << "model.layers[0]: layer \"conv2d\" (Conv2D) cannot take input of shape (None, 4)";
    }

    void problemsNameTheirFields()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        Json doc = minimal();
        doc[Json::json_pointer(pointer.toStdString())] = Json::parse(value.toStdString());
        const QStringList problems = problemsOf(doc);
        bool found = false;
        for (const auto& p : problems)
            found = found || p.contains(expected);
        QVERIFY2(found, qPrintable("expected \"" + expected + "\" among:\n" + problems.join('\n')));
    }

    void parameterServerClusterNeedsItsTasks()
    {
        Json doc = minimal();
        doc["strategy"] = {{"type", "ParameterServer"}};
        doc["cluster"] = Json::parse(R"({"nodes": [{"name": "a", "host": "127.0.0.1"}],
                                         "tasks": [{"type": "worker", "node": "a"}]})");
        const QStringList problems = problemsOf(doc);
        QCOMPARE(problems.size(), 2);
        QVERIFY(problems[0].startsWith("cluster.tasks: ParameterServer needs exactly one chief task"));
        QVERIFY(problems[1].startsWith("cluster.tasks: ParameterServer needs at least one ps task"));
        doc["cluster"]["tasks"] = Json::parse(R"([{"type": "chief", "node": "a"}, {"type": "worker", "node": "a"},
                                                   {"type": "ps", "node": "a", "count": 2}])");
        QVERIFY2(problemsOf(doc).isEmpty(), qPrintable(problemsOf(doc).join('\n')));
    }

    void allProblemsAtOnce()
    {
        Json doc = minimal();
        doc["training"]["epochs"] = 0;
        doc["training"]["optimizer"] = {{"type", "sgd"}, {"momentum", 2}};
        doc["model"]["layers"][0]["unit"] = 3;
        const QStringList problems = problemsOf(doc);
        QCOMPARE(problems.size(), 3);
    }

    void missingSectionsAreReported()
    {
        const QStringList problems = problemsOf(Json::object());
        QVERIFY(problems.contains("model: is required"));
        QVERIFY(problems.contains("data: is required"));
        QVERIFY(problems.contains("training: is required"));
        QVERIFY(!problemsOf(Json::array()).isEmpty());
    }

    void malformedJsonGivesLineAndColumn()
    {
        const std::string text = "{\n  \"name\": \"x\",\n  \"seed\": 1,,\n}\n";
        try {
            parseJsonText(text, "exp.strata.json");
            QFAIL("no ParseError");
        } catch (const strata::ParseError& e) {
            QCOMPARE(e.line(), 3);
            QCOMPARE(e.column(), 13);
            QVERIFY2(QString(e.what()).startsWith("exp.strata.json:3:13: invalid JSON"), e.what());
        }
        try {
            parseJsonText("{\"a\": [1, 2", "f.json");
            QFAIL("no ParseError");
        } catch (const strata::ParseError& e) {
            QCOMPARE(e.line(), 1);
        }
        // A number beyond a double is nlohmann's out_of_range, not a parse_error (found by
        // fuzz_experiment: it escaped as a JSON library exception).
        try {
            parseJsonText("{\n  \"seed\": 1e400\n}", "big.json");
            QFAIL("no ParseError");
        } catch (const strata::ParseError& e) {
            QCOMPARE(e.line(), 2);
            QCOMPARE(e.column(), 11);
            QVERIFY2(QString(e.what()).contains("number overflow parsing '1e400'"), e.what());
        }
    }

    void missingFileIsAnIoError()
    {
        QVERIFY_THROWS_EXCEPTION(strata::IoError, loadExperiment("/nonexistent/exp.strata.json"));
    }

    // A model file named in a document that is a device or a directory: refused by name, not
    // read forever (/dev/zero) or parsed as nothing.
    void modelFileThatIsNoFile_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("reason");
        QTest::newRow("device") << "/dev/zero" << "/dev/zero: is a device, not a JSON file";
        QTest::newRow("directory") << "/" << "/: is a directory, not a JSON file";
    }

    void modelFileThatIsNoFile()
    {
        QFETCH(QString, model);
        QFETCH(QString, reason);
        Json doc = Json::parse(R"({"data": {"source": {"type": "synthetic"}}, "training": {}})");
        doc["model"] = model.toStdString();
        try {
            parseExperiment(doc, "/nonexistent");
            QFAIL("no ConfigError");
        } catch (const strata::ConfigError& e) {
            QVERIFY2(QString(e.what()).contains("model: " + reason), e.what());
        }
    }

    void modelFromAFile()
    {
        QTemporaryDir dir;
        {
            std::ofstream out((dir.path() + "/model.json").toStdString());
            out << R"({"input_shape": [4], "layers": [{"type": "Dense", "units": 3}]})";
        }
        Json doc = minimal();
        doc["model"] = "model.json";
        const Experiment e = parseExperiment(doc, dir.path().toStdString());
        QCOMPARE(e.model.layers.size(), size_t(1));
        doc["model"] = "missing.json";
        QVERIFY(problemsOf(doc).join('\n').contains("model: "));
    }

    void pathsResolveAgainstTheDocument()
    {
        Experiment e = parseExperiment(minimal(), "/data/exps");
        QCOMPARE(resolvePath(e, "../d/train.tsv"), std::string("/data/d/train.tsv"));
        QCOMPARE(resolvePath(e, "/abs/x"), std::string("/abs/x"));
        qputenv("HOME", "/home/someone");
        QCOMPARE(resolvePath(e, "~/datasets/c"), std::string("/home/someone/datasets/c"));
    }

    void roundTrip()
    {
        Json doc = minimal();
        doc["training"]["optimizer"] = {{"type", "rmsprop"}, {"momentum", 0.5}, {"centered", true}};
        doc["data"]["validation"] = "split";
        doc["data"]["validation_split"] = 0.25;
        doc["training"]["initial_weights"] = "keras/model.weights.h5";
        const Experiment e = parseExperiment(doc, "/");
        const Experiment again = parseExperiment(experimentToJson(e), "/");
        QCOMPARE(experimentToJson(again).dump(), experimentToJson(e).dump());
        QCOMPARE(again.training.optimizer.centered, true);
        QCOMPARE(again.data.validationSplit, 0.25);
        QCOMPARE(again.training.initialWeights, std::string("keras/model.weights.h5"));
        // None by default, and then not written.
        QVERIFY(parseExperiment(minimal(), "/").training.initialWeights.empty());
        QVERIFY(!experimentToJson(parseExperiment(minimal(), "/"))["training"].contains("initial_weights"));
    }

    void shippedExamplesAreValid_data()
    {
        QTest::addColumn<QString>("file");
        const QDir dir(STRATA_EXPERIMENTS_DIR);
        for (const QString& name : dir.entryList({"*.strata.json"}))
            QTest::newRow(qPrintable(name)) << dir.filePath(name);
        QVERIFY(dir.entryList({"*.strata.json"}).size() >= 5);
    }

    void shippedExamplesAreValid()
    {
        QFETCH(QString, file);
        const Experiment e = loadExperiment(file.toStdString());
        QVERIFY(!e.description.empty());
        QVERIFY(inferShapes(e.model).ok());
    }
};

QTEST_GUILESS_MAIN(TestExperiment)
#include "tst_experiment.moc"
