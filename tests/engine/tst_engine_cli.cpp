// strata-engine as a user meets it: commands, events, and a clear error with a non-zero exit
// (never a crash) for every kind of bad input.

#include "engine_process.h"

#include <QtTest>

#include <QRegularExpression>

#include <sys/stat.h>

using namespace testing;

class TestEngineCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // Runs `train` on `doc` with events on stdout; returns the result.
    EngineResult train(const Json& doc, const QString& runDir = QString())
    {
        const QString file = writeExperiment(m_dir, doc, "exp-" + QString::number(++m_count) + ".strata.json");
        return runEngine({"train", file, "--events", "stdout", "--run-dir",
                          runDir.isEmpty() ? m_dir.filePath("run-" + QString::number(m_count)) : runDir});
    }
    int m_count = 0;

    // This environment without the variables the cluster resolvers read.
    static QProcessEnvironment withoutSlurm()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const QString& name : env.keys())
            if (name.startsWith("SLURM_") || name == "TF_CONFIG" || name == "CUDA_VISIBLE_DEVICES" ||
                name == "STRATA_NODE_GPUS")
                env.remove(name);
        return env;
    }

    // A task of a Slurm step, as srun starts it.
    static QProcessEnvironment slurmStep(const QString& procid, const QString& tasks, const QString& nodelist,
                                         const QString& tasksPerNode)
    {
        QProcessEnvironment env = withoutSlurm();
        env.insert("SLURM_PROCID", procid);
        env.insert("SLURM_STEP_NUM_TASKS", tasks);
        env.insert("SLURM_STEP_NODELIST", nodelist);
        env.insert("SLURM_STEP_TASKS_PER_NODE", tasksPerNode);
        return env;
    }

    // The run failed cleanly: exit status, an `error` event of `kind` whose message contains
    // every needle, and the same message on stderr.
    void expectError(const EngineResult& r, int exitCode, const std::string& kind, const QStringList& needles)
    {
        QVERIFY2(!r.crashed, qPrintable(r.errText()));
        QCOMPARE(r.exitCode, exitCode);
        const Json* error = r.first("error");
        QVERIFY2(error, qPrintable("no error event; stderr: " + r.errText()));
        QCOMPARE((*error)["kind"].get<std::string>(), kind);
        QVERIFY((*error)["fatal"].get<bool>());
        const QString message = QString::fromStdString((*error)["message"].get<std::string>());
        for (const QString& needle : needles) {
            QVERIFY2(message.contains(needle), qPrintable("\"" + needle + "\" not in: " + message));
            QVERIFY2(r.errText().contains(needle), qPrintable("\"" + needle + "\" not on stderr: " + r.errText()));
        }
        QVERIFY(!r.first("done"));
    }

private slots:
    void versionAndHelp()
    {
        const EngineResult v = runEngine({"--version"});
        QCOMPARE(v.exitCode, 0);
        QVERIFY(v.out.startsWith("strata-engine 0."));
        const EngineResult h = runEngine({"--help"});
        QCOMPARE(h.exitCode, 0);
        for (const char* command : {"train", "start", "attach", "validate", "summary", "evaluate", "predict", "probe",
                                    "plan-probe", "export-keras", "cluster"})
            QVERIFY2(h.out.contains(command), command);
        const EngineResult bad = runEngine({"frobnicate"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("unknown command \"frobnicate\""));
    }

    void probeSaysHello()
    {
        const EngineResult r = runEngine({"probe"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.events.size(), size_t(1));
        const Json& hello = r.events[0];
        QCOMPARE(hello["type"].get<std::string>(), std::string("hello"));
        QCOMPARE(hello["v"].get<int>(), 1);
        QVERIFY(!hello["host"].get<std::string>().empty());
        QCOMPARE(hello["devices"][0]["name"].get<std::string>(), std::string("cpu:0"));
        QVERIFY(hello["devices"][0]["cores"].get<int>() >= 1);
        QVERIFY(QString::fromStdString(hello["blas"].get<std::string>()).contains("oneDNN"));
    }

    void trainsAndWritesTheRunDirectory()
    {
        const QString runDir = m_dir.filePath("good-run");
        const EngineResult r = train(smallExperiment(), runDir);
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        QCOMPARE(r.events.front()["type"].get<std::string>(), std::string("hello"));
        QCOMPARE(r.events.back()["type"].get<std::string>(), std::string("done"));
        const Json& done = r.events.back();
        QCOMPARE(done["status"].get<std::string>(), std::string("completed"));
        QCOMPARE(done["steps"].get<int>(), 3 * 38); // 600 examples / 16 = 37.5 -> 38 steps per epoch
        QVERIFY(done["test"]["accuracy"].get<double>() > 0.8);
        QVERIFY(done["peak_rss_bytes"].get<int64_t>() > 0);

        for (const char* f : {"experiment.strata.json", "events-worker-0.jsonl", "steps-worker-0.jsonl", "summary.txt",
                              "model.weights"})
            QVERIFY2(QFile::exists(runDir + "/" + f), f);
        // The event file holds exactly what went to stdout (hello included).
        QCOMPARE(QByteArray::fromStdString(readText(runDir + "/events-worker-0.jsonl")), r.out);
        // One full-resolution record per step.
        const auto steps = parseLines(QByteArray::fromStdString(readText(runDir + "/steps-worker-0.jsonl")));
        QCOMPARE(steps.size(), size_t(3 * 38));
        QCOMPARE(steps.back()["step"].get<int>(), 3 * 38);
        // Every event carries the envelope.
        for (const auto& e : r.events) {
            QCOMPARE(e["v"].get<int>(), 1);
            QCOMPARE(e["task"].get<std::string>(), std::string("worker:0"));
            QVERIFY(e["t"].get<double>() > 1.6e9);
        }
        const Json* start = r.first("start");
        QVERIFY(start);
        QCOMPARE((*start)["total_steps"].get<int>(), 3 * 38);
        QCOMPARE((*start)["params"].get<int>(), 8 * 16 + 16 + 16 * 3 + 3);
        int epochs = 0;
        for (const auto& e : r.events)
            if (e["type"] == "epoch") {
                ++epochs;
                // Each record carries the running training metrics: at an epoch's last step,
                // the epoch's own.
                const Json& record = steps[e["step"].get<size_t>() - 1];
                QCOMPARE(record["step"], e["step"]);
                QCOMPARE(record["metrics"]["accuracy"].get<double>(), e["train"]["accuracy"].get<double>());
            }
        QCOMPARE(epochs, 3);
        for (const Json& record : steps)
            QVERIFY(record["metrics"]["accuracy"].is_number());
        // The experiment copy is a valid experiment on its own.
        const EngineResult again = runEngine({"validate", runDir + "/experiment.strata.json"});
        QVERIFY2(again.exitCode == 0, again.err.constData());

        // evaluate and predict use the final weights.
        const QString file = writeExperiment(m_dir, smallExperiment(), "eval.strata.json");
        const EngineResult eval = runEngine({"evaluate", file, "--run-dir", runDir});
        QCOMPARE(eval.exitCode, 0);
        QCOMPARE(eval.events[0]["accuracy"].get<double>(), done["test"]["accuracy"].get<double>());
        const EngineResult predict = runEngine({"predict", file, "--run-dir", runDir, "--count", "4"});
        QCOMPARE(predict.exitCode, 0);
        QCOMPARE(predict.events.size(), size_t(4));
        double sum = 0;
        for (double p : predict.events[0]["output"])
            sum += p;
        QVERIFY2(std::abs(sum - 1.0) < 1e-5, "softmax outputs must sum to 1 in predict");
    }

    void stdoutCarriesNoEventsWhenAskedNot()
    {
        const QString file = writeExperiment(m_dir, smallExperiment(), "quiet.strata.json");
        const EngineResult r = runEngine({"train", file, "--events", "none", "--run-dir", m_dir.filePath("quiet-run")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY(r.errText().contains("Test "));
        QVERIFY(r.errText().contains("Run directory: "));
    }

    void malformedJson()
    {
        const QString file = writeFile(m_dir, "broken.strata.json", "{\n  \"name\": \"x\",\n  \"seed\": 1,,\n}\n");
        const EngineResult r = runEngine({"train", file, "--events", "stdout", "--run-dir", m_dir.filePath("x")});
        expectError(r, 2, "parse", {"broken.strata.json:3:13", "invalid JSON"});
        QCOMPARE((*r.first("error"))["line"].get<int>(), 3);
        QVERIFY(!QFile::exists(m_dir.filePath("x")));
    }

    void unknownLayerField()
    {
        Json doc = smallExperiment();
        doc["model"]["layers"][0]["unit"] = 16;
        const EngineResult r = train(doc);
        expectError(r, 2, "config", {"model.layers[0].unit: unknown field (did you mean \"units\"?)"});
        QCOMPARE((*r.first("error"))["problems"][0]["path"].get<std::string>(), std::string("model.layers[0].unit"));
    }

    void unknownLayerType()
    {
        Json doc = smallExperiment();
        doc["model"]["layers"][1]["type"] = "SimpleRNN";
        expectError(train(doc), 2, "config", {"model.layers[1].type: unknown layer type \"SimpleRNN\""});
    }

    void incompatibleShapes()
    {
        Json doc = smallExperiment();
        doc["model"]["layers"][0] = {{"type", "Conv2D"}, {"filters", 4}, {"kernel_size", 3}, {"name", "conv"}};
        expectError(train(doc), 2, "config", {"model.layers[0]", "\"conv\" (Conv2D)", "(None, 8)"});
    }

    void dataThatDoesNotFitTheModel()
    {
        Json doc = smallExperiment();
        doc["model"]["input_shape"] = {28, 28};
        doc["model"]["layers"].insert(doc["model"]["layers"].begin(), Json{{"type", "Flatten"}});
        expectError(train(doc), 1, "shape", {"have shape (8,)", "input_shape is (28, 28)"});

        Json classes = smallExperiment();
        classes["model"]["layers"][2]["units"] = 2;
        expectError(train(classes), 1, "shape", {"2 values per example", "3 classes"});
    }

    void missingDatasetFile()
    {
        Json doc = smallExperiment();
        doc["model"]["input_shape"] = {28, 28};
        doc["model"]["layers"].insert(doc["model"]["layers"].begin(), Json{{"type", "Flatten"}});
        doc["data"]["source"] = {{"type", "idx"}, {"train_images", "no-such-images.idx3-ubyte.gz"}, {"train_labels", "labels.gz"}};
        doc["data"]["validation"] = "none";
        expectError(train(doc), 1, "data", {"no-such-images.idx3-ubyte.gz", "file not found"});
    }

    void corruptDatasetFile()
    {
        // An IDX image file cut short: the header promises 100 images of 4x4.
        std::string idx("\x00\x00\x08\x03\x00\x00\x00\x64\x00\x00\x00\x04\x00\x00\x00\x04", 16);
        idx += std::string(50, '\x7f');
        writeFile(m_dir, "short-images.idx", idx);
        std::string labels("\x00\x00\x08\x01\x00\x00\x00\x64", 8);
        labels += std::string(100, '\x01');
        writeFile(m_dir, "labels.idx", labels);
        Json doc = smallExperiment();
        doc["model"]["input_shape"] = {4, 4};
        doc["model"]["layers"].insert(doc["model"]["layers"].begin(), Json{{"type", "Flatten"}});
        doc["data"]["source"] = {{"type", "idx"}, {"train_images", "short-images.idx"}, {"train_labels", "labels.idx"}};
        doc["data"]["validation"] = "none";
        expectError(train(doc), 1, "data", {"short-images.idx", "truncated"});
    }

    void unwritableRunDirectory()
    {
        // A regular file where a directory must go: fails even for root.
        writeFile(m_dir, "a-file", "x");
        expectError(train(smallExperiment(), m_dir.filePath("a-file/run")), 1, "io",
                    {"cannot create run directory", "a-file/run"});
    }

    void divergenceStopsAtTheFirstNaN()
    {
        Json doc = smallExperiment();
        doc["model"]["layers"][2]["activation"] = "linear";
        doc["training"]["loss"] = "mse";
        doc["training"]["metrics"] = Json::array();
        doc["data"]["source"] = {{"type", "synthetic"}, {"task", "regression"}, {"features", 8}};
        doc["model"]["layers"][2]["units"] = 1;
        doc["training"]["optimizer"] = {{"type", "sgd"}, {"learning_rate", 1e6}};
        const EngineResult r = train(doc);
        expectError(r, 1, "numeric", {"loss became", "at step", "epoch 1", "lower learning rate"});
        // The last step event before the error names a step before the failing one.
        const QString message = QString::fromStdString((*r.first("error"))["message"].get<std::string>());
        const int failedStep = QRegularExpression("at step (\\d+)").match(message).captured(1).toInt();
        QVERIFY(failedStep >= 1);
    }

    void validateListsEveryProblem()
    {
        Json doc = smallExperiment();
        doc["training"]["epochs"] = 0;
        doc["training"]["optimizer"]["learning_rate"] = -1;
        const QString file = writeExperiment(m_dir, doc, "invalid.strata.json");
        const EngineResult r = runEngine({"validate", file});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.errText().contains("training.epochs: must be between 1"));
        QVERIFY(r.errText().contains("training.optimizer.learning_rate: must be greater than 0, got -1"));
        const EngineResult j = runEngine({"validate", file, "--json"});
        QCOMPARE(j.exitCode, 2);
        QCOMPARE(j.events[0]["ok"].get<bool>(), false);
        QCOMPARE(j.events[0]["problems"].size(), size_t(2));
        const EngineResult ok = runEngine({"validate", writeExperiment(m_dir, smallExperiment(), "ok.strata.json")});
        QCOMPARE(ok.exitCode, 0);
    }

    void summaryPrintsTheModel()
    {
        const EngineResult r = runEngine({"summary", writeExperiment(m_dir, smallExperiment(), "s.strata.json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("dense (Dense)"));
        QVERIFY(r.out.contains("Total params: 195"));
    }

    // docs/keras-export.md: a run as Keras 3 files, and a run that starts from them.
    void exportsToKerasAndStartsFromTheExport()
    {
        if (!STRATA_HAVE_HDF5)
            QSKIP("this build has no libhdf5 (an engine-only build without it): no Keras weights files");
        const QString runA = m_dir.filePath("keras-a");
        const EngineResult a = train(smallExperiment(), runA);
        QVERIFY2(a.exitCode == 0, qPrintable(a.errText()));
        const QString out = m_dir.filePath("keras-export");
        const EngineResult e = runEngine({"export-keras", runA, "--out", out});
        QVERIFY2(e.exitCode == 0, qPrintable(e.errText()));
        QCOMPARE(e.events.size(), size_t(1));
        QCOMPARE(e.events[0]["layers"].get<int>(), 3);
        QCOMPARE(e.events[0]["variables"].get<int>(), 4);
        QCOMPARE(e.events[0]["keras_version"].get<std::string>(), std::string("3.12"));
        QCOMPARE(e.events[0]["weights"].get<std::string>(), (out + "/model.weights.h5").toStdString());
        const Json config = Json::parse(readText(out + "/config.json"));
        QCOMPARE(config["module"].get<std::string>(), std::string("keras"));
        QCOMPARE(config["class_name"].get<std::string>(), std::string("Sequential"));
        QCOMPARE(config["config"]["layers"].size(), size_t(4)); // the InputLayer first
        QCOMPARE(config["config"]["layers"][1]["config"]["units"].get<int>(), 16);
        const Json metadata = Json::parse(readText(out + "/metadata.json"));
        QCOMPARE(metadata["keras_version"].get<std::string>(), std::string("3.12.0"));
        QVERIFY(QRegularExpression(R"(^\d{4}-\d\d-\d\d@\d\d:\d\d:\d\d$)")
                    .match(QString::fromStdString(metadata["date_saved"].get<std::string>()))
                    .hasMatch());
        QCOMPARE(readText(out + "/model.weights.h5").substr(0, 8), std::string("\x89HDF\r\n\x1a\n"));

        // A second run starts from the export (a path relative to its experiment) and changes
        // nothing (a learning rate of 1e-30 moves no float32 weight of this size): its final
        // weights are bitwise the first run's.
        Json b = smallExperiment();
        b["training"]["initial_weights"] = "keras-export/model.weights.h5";
        b["training"]["optimizer"]["learning_rate"] = 1e-30;
        b["training"]["epochs"] = 1;
        const QString runB = m_dir.filePath("keras-b");
        const EngineResult rb = train(b, runB);
        QVERIFY2(rb.exitCode == 0, qPrintable(rb.errText()));
        bool announced = false;
        for (const auto& ev : rb.events)
            announced |= ev["type"] == "log" && ev["message"].get<std::string>() ==
                                                    "starting from the initial weights in " +
                                                        (out + "/model.weights.h5").toStdString();
        QVERIFY(announced);
        QCOMPARE(rb.events.back()["weights_crc32"], a.events.back()["weights_crc32"]);
        const QString file = writeExperiment(m_dir, smallExperiment(), "keras-predict.strata.json");
        const EngineResult pa = runEngine({"predict", file, "--run-dir", runA, "--count", "5"});
        const EngineResult pb = runEngine({"predict", file, "--run-dir", runB, "--count", "5"});
        QCOMPARE(pa.exitCode, 0);
        QCOMPARE(pb.out, pa.out);
        // The run's experiment copy names the file absolutely.
        const Json copy = Json::parse(readText(runB + "/experiment.strata.json"));
        QCOMPARE(copy["training"]["initial_weights"].get<std::string>(), (out + "/model.weights.h5").toStdString());

        // The same export written for Keras 3.5, from the weights file and its experiment.
        const EngineResult old = runEngine({"export-keras", runA + "/model.weights", runA + "/experiment.strata.json",
                                            "--out", m_dir.filePath("keras-35"), "--keras-version", "3.5"});
        QVERIFY2(old.exitCode == 0, qPrintable(old.errText()));
        QCOMPARE(Json::parse(readText(m_dir.filePath("keras-35/metadata.json")))["keras_version"].get<std::string>(),
                 std::string("3.5.0"));

        // A Keras file of another model: the dataset and both shapes are named.
        Json wider = smallExperiment();
        wider["model"]["layers"][0]["units"] = 12;
        wider["training"]["initial_weights"] = "keras-export/model.weights.h5";
        expectError(train(wider), 1, "data",
                    {"model.weights.h5", "dataset layers/dense/vars/0 has shape (8, 16)", "needs (8, 12)"});
    }

    void exportAndInitialWeightsErrors()
    {
        Json doc = smallExperiment();
        doc["training"]["initial_weights"] = "missing.weights.h5";
        expectError(train(doc), 1, "io", {"missing.weights.h5", "no such file"});
        writeFile(m_dir, "bogus.weights.h5", "not an HDF5 file\n");
        doc["training"]["initial_weights"] = "bogus.weights.h5";
        expectError(train(doc), 1, "data", {"bogus.weights.h5", "neither an HDF5 file"});
        doc["training"]["initial_weights"] = 5;
        expectError(train(doc), 2, "config", {"training.initial_weights"});

        const EngineResult noOut = runEngine({"export-keras", m_dir.path()});
        QCOMPARE(noOut.exitCode, 2);
        QVERIFY2(noOut.errText().contains("needs --out"), qPrintable(noOut.errText()));
        const EngineResult unfinished = runEngine({"export-keras", m_dir.path(), "--out", m_dir.filePath("x")});
        QCOMPARE(unfinished.exitCode, 1);
        QVERIFY2(unfinished.errText().contains("has no model.weights"), qPrintable(unfinished.errText()));
        const EngineResult version =
            runEngine({"export-keras", m_dir.path(), "--out", m_dir.filePath("x"), "--keras-version", "2.15"});
        QCOMPARE(version.exitCode, 2);
        QVERIFY2(version.errText().contains("--keras-version") && version.errText().contains("3.0 to 3.15"),
                 qPrintable(version.errText()));
        const EngineResult noExperiment = runEngine({"export-keras", m_dir.filePath("bogus.weights.h5"), "--out", "x"});
        QCOMPARE(noExperiment.exitCode, 2);
        QVERIFY2(noExperiment.errText().contains("needs the experiment"), qPrintable(noExperiment.errText()));
    }

    // `cluster` in a Slurm step: TensorFlow's SlurmClusterResolver's cluster, task and GPUs.
    void clusterInASlurmStep()
    {
        const QProcessEnvironment env = slurmStep("3", "5", "n[1-3]", "2(x2),1");
        EngineResult r = runEngine({"cluster"}, 60000, env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        QCOMPARE(QString::fromUtf8(r.out).trimmed(),
                 QString(R"({"source":"slurm","cluster":{"worker":["n1:8888","n1:8889","n2:8888","n2:8889","n3:8888"]},)"
                         R"("task":{"type":"worker","index":3},"cuda_visible_devices":null,"node":"n2"})"));
        // The options: jobs in name order take the ranks; GPUs shared among the most tasks on a node.
        r = runEngine({"cluster", "--jobs", "worker:4,ps:1", "--port-base", "2222", "--gpus-per-node", "4"}, 60000, env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        QCOMPARE(QString::fromUtf8(r.out).trimmed(),
                 QString(R"({"source":"slurm","cluster":{"ps":["n1:2222"],"worker":["n1:2223","n2:2222","n2:2223","n3:2222"]},)"
                         R"("task":{"type":"worker","index":2},"cuda_visible_devices":"2,3","node":"n2"})"));
        r = runEngine({"cluster", "--tasks-per-node", "1(x3)", "--jobs", "worker:3", "--gpus-per-task", "1",
                       "--gpus-per-node", "1"},
                      60000, slurmStep("2", "3", "gpu[08-10]", "2(x2),1"));
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        QCOMPARE(QString::fromUtf8(r.out).trimmed(),
                 QString(R"({"source":"slurm","cluster":{"worker":["gpu08:8888","gpu09:8888","gpu10:8888"]},)"
                         R"("task":{"type":"worker","index":2},"cuda_visible_devices":"0","node":"gpu10"})"));
    }

    void clusterPrecedence()
    {
        Json doc = smallExperiment();
        doc["strategy"] = "MultiWorkerMirrored";
        doc["cluster"] = Json::parse(R"({"slurm": {"jobs": {"chief": 1, "worker": 2}, "nodes": 3}})");
        const QString slurmExperiment = writeExperiment(m_dir, doc, "slurm.strata.json");
        const QString plain = writeExperiment(m_dir, smallExperiment(), "plain.strata.json");
        QProcessEnvironment env = slurmStep("1", "3", "a,b,c", "1(x3)");
        // The experiment's cluster.slurm in a Slurm step.
        EngineResult r = runEngine({"cluster", slurmExperiment}, 60000, env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        QCOMPARE(QString::fromUtf8(r.out).trimmed(),
                 QString(R"({"source":"slurm","cluster":{"chief":["a:8888"],"worker":["b:8888","c:8888"]},)"
                         R"("task":{"type":"worker","index":0},"cuda_visible_devices":null,"node":"b"})"));
        // An experiment without cluster.slurm keeps its cluster, in a Slurm step too.
        r = runEngine({"cluster", plain}, 60000, env);
        QCOMPARE(QString::fromUtf8(r.out).trimmed(),
                 QString(R"({"source":"experiment","cluster":{"worker":["localhost:29500"]},"task":null,)"
                         R"("cuda_visible_devices":null,"node":null})"));
        // TF_CONFIG comes first (TensorFlow's string index too)...
        env.insert("TF_CONFIG", R"({"cluster": {"chief": ["h:1"], "worker": ["h:2", "h:3"]}, "task": {"type": "worker", "index": "1"}})");
        r = runEngine({"cluster", slurmExperiment}, 60000, env);
        QCOMPARE(QString::fromUtf8(r.out).trimmed(),
                 QString(R"({"source":"tf_config","cluster":{"chief":["h:1"],"worker":["h:2","h:3"]},)"
                         R"("task":{"type":"worker","index":1},"cuda_visible_devices":null,"node":"h"})"));
        // ...unless --slurm asks for the Slurm step.
        r = runEngine({"cluster", slurmExperiment, "--slurm"}, 60000, env);
        QVERIFY2(QString::fromUtf8(r.out).startsWith(R"({"source":"slurm")"), r.out.constData());
        // A TF_CONFIG without a cluster is none, as in TensorFlow.
        env.insert("TF_CONFIG", "{}");
        r = runEngine({"cluster", slurmExperiment}, 60000, env);
        QVERIFY2(QString::fromUtf8(r.out).startsWith(R"({"source":"slurm")"), r.out.constData());
        // Neither an experiment nor a step: this machine's default.
        r = runEngine({"cluster"}, 60000, withoutSlurm());
        QCOMPARE(QString::fromUtf8(r.out).trimmed(),
                 QString(R"({"source":"default","cluster":{"worker":["localhost:29500"]},"task":null,)"
                         R"("cuda_visible_devices":null,"node":null})"));
    }

    void clusterErrors()
    {
        Json doc = smallExperiment();
        doc["cluster"] = Json::parse(R"({"slurm": {}})");
        const QString slurmExperiment = writeExperiment(m_dir, doc, "slurm-one.strata.json");
        // cluster.slurm outside a Slurm step names the variable and says how to start the task.
        EngineResult r = runEngine({"cluster", slurmExperiment}, 60000, withoutSlurm());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.errText().contains("SLURM_PROCID: is not set: not running inside a Slurm step? Start each task with "
                                      "srun inside an allocation"),
                 qPrintable(r.errText()));
        QProcessEnvironment partial = slurmStep("0", "1", "n1", "1");
        partial.remove("SLURM_STEP_NODELIST");
        r = runEngine({"cluster", slurmExperiment}, 60000, partial);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.errText().contains("SLURM_STEP_NODELIST: is not set"), qPrintable(r.errText()));
        // train refuses the same, with an error event.
        r = runEngine({"train", slurmExperiment, "--events", "stdout", "--run-dir", m_dir.filePath("slurm-refused")}, 60000,
                      withoutSlurm());
        expectError(r, 2, "config", {"SLURM_PROCID: is not set", "srun"});
        // What the resolver refuses, and bad options.
        const QProcessEnvironment env = slurmStep("0", "5", "n[1-3]", "2(x2),1");
        r = runEngine({"cluster", "--jobs", "worker:6"}, 60000, env);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.errText().contains("jobs: requested 6 tasks but the Slurm step has 5"), qPrintable(r.errText()));
        r = runEngine({"cluster", "--jobs", "master:1,worker:4"}, 60000, env);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.errText().contains("jobs.master: \"master\" is not a Strata task type"), qPrintable(r.errText()));
        r = runEngine({"cluster", "--gpus-per-node", "2", "--gpus-per-task", "2"}, 60000, env);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.errText().contains("requested more GPUs per node than available"), qPrintable(r.errText()));
        r = runEngine({"cluster", "--jobs", "worker"}, 60000, env);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.errText().contains("--jobs needs TYPE:N,TYPE:N"), qPrintable(r.errText()));
        r = runEngine({"cluster", "--port-base", "0"}, 60000, env);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.errText().contains("--port-base needs a whole number from 1 to 65535"), qPrintable(r.errText()));
        r = runEngine({"cluster", "--tasks-per-node", "2(x"}, 60000, env);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.errText().contains("--tasks-per-node: invalid tasks-per-node list"), qPrintable(r.errText()));
        r = runEngine({"cluster", "a.json", "b.json"}, 60000, env);
        QCOMPARE(r.exitCode, 2);
    }

    // Each task its own GPUs outside Slurm: `cluster` prints the share train gives a task of the
    // experiment's cluster or TF_CONFIG's, from the node's GPUs (STRATA_NODE_GPUS stands in for
    // the driver here) or the CUDA_VISIBLE_DEVICES the process has.
    void clusterGivesEachTaskItsGpus()
    {
        Json doc = smallExperiment();
        doc["strategy"] = "MultiWorkerMirrored";
        doc["cluster"] = Json::parse(R"({"nodes": [{"name": "local", "host": "localhost"}, {"name": "b", "host": "b.example"}],
                                         "tasks": [{"type": "chief", "node": "local"}, {"type": "worker", "node": "local", "count": 2},
                                                   {"type": "worker", "node": "b"}]})");
        const QString experiment = writeExperiment(m_dir, doc, "gpus.strata.json");
        QProcessEnvironment env = withoutSlurm();
        env.insert("STRATA_NODE_GPUS", "6");
        const auto gpusOf = [&](const QString& task, const QProcessEnvironment& e) {
            const EngineResult r = runEngine({"cluster", experiment, "--task", task}, 60000, e);
            if (r.exitCode != 0)
                return "exit " + QString::number(r.exitCode) + ": " + r.errText().trimmed();
            const Json out = Json::parse(r.out.toStdString());
            return out["cuda_visible_devices"].is_null() ? QStringLiteral("null")
                                                         : QString::fromStdString(out["cuda_visible_devices"].get<std::string>());
        };
        QCOMPARE(gpusOf("chief:0", env), QStringLiteral("0,1"));
        QCOMPARE(gpusOf("worker:0", env), QStringLiteral("2,3"));
        QCOMPARE(gpusOf("worker:1", env), QStringLiteral("4,5"));
        QCOMPARE(gpusOf("worker:2", env), QStringLiteral("null")); // alone on its node
        const EngineResult whole = runEngine({"cluster", experiment, "--task", "worker:1"}, 60000, env);
        QCOMPARE(QString::fromUtf8(whole.out).trimmed(),
                 QString(R"({"source":"experiment","cluster":{"chief":["localhost:29500"],"worker":["localhost:29501",)"
                         R"("localhost:29502","b.example:29500"]},"task":{"type":"worker","index":1},)"
                         R"("cuda_visible_devices":"4,5","node":"localhost"})"));
        // Picked from the GPUs the process may use.
        QProcessEnvironment restricted = env;
        restricted.insert("CUDA_VISIBLE_DEVICES", "3,5,7");
        QCOMPARE(gpusOf("chief:0", restricted), QStringLiteral("3"));
        QCOMPARE(gpusOf("worker:1", restricted), QStringLiteral("7"));
        // No GPU: nothing set.
        QProcessEnvironment none = withoutSlurm();
        none.insert("STRATA_NODE_GPUS", "0");
        QCOMPARE(gpusOf("worker:0", none), QStringLiteral("null"));
        // TF_CONFIG's cluster, the experiment's gpus_per_task kept.
        doc["cluster"]["gpus_per_task"] = 1;
        const QString perTask = writeExperiment(m_dir, doc, "gpus-per-task.strata.json");
        QProcessEnvironment tfConfig = env;
        tfConfig.insert("TF_CONFIG", R"({"cluster": {"worker": ["localhost:1", "localhost:2", "localhost:3"]},
                                         "task": {"type": "worker", "index": 2}})");
        EngineResult r = runEngine({"cluster", perTask}, 60000, tfConfig);
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        QCOMPARE(QString::fromUtf8(r.out).trimmed(),
                 QString(R"({"source":"tf_config","cluster":{"worker":["localhost:1","localhost:2","localhost:3"]},)"
                         R"("task":{"type":"worker","index":2},"cuda_visible_devices":"2","node":"localhost"})"));
        // Problems: more GPUs asked than the node has; a bad STRATA_NODE_GPUS; a bad --task.
        doc["cluster"]["gpus_per_task"] = 3;
        const QString tooMany = writeExperiment(m_dir, doc, "gpus-too-many.strata.json");
        r = runEngine({"cluster", tooMany, "--task", "worker:0"}, 60000, env);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.errText().contains("cluster.gpus_per_task: asks for more GPUs than the node has: 3 tasks using GPUs "
                                      "on the host of worker:0 with 3 GPUs each need 9, the node has 6"),
                 qPrintable(r.errText()));
        QProcessEnvironment bad = withoutSlurm();
        bad.insert("STRATA_NODE_GPUS", "four");
        QVERIFY2(gpusOf("worker:0", bad).contains("STRATA_NODE_GPUS: \"four\" is not a whole number"),
                 qPrintable(gpusOf("worker:0", bad)));
        QVERIFY2(gpusOf("worker", env).contains("--task needs TYPE:INDEX"), qPrintable(gpusOf("worker", env)));

        // train: the hello event says the task's GPUs; too many asked fails as the experiment would.
        r = runEngine({"train", tooMany, "--task", "worker:0", "--events", "stdout", "--run-dir", m_dir.filePath("gpus-refused")},
                      60000, env);
        expectError(r, 2, "config", {"cluster.gpus_per_task: asks for more GPUs than the node has"});
        QVERIFY(r.first("hello"));
        QVERIFY((*r.first("hello"))["cuda_visible_devices"].is_null());
        restricted.insert("STRATA_NODE_GPUS", "0");
        r = runEngine({"train", writeExperiment(m_dir, smallExperiment(), "gpus-one.strata.json"), "--events", "stdout",
                       "--run-dir", m_dir.filePath("gpus-one")},
                      600000, restricted);
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        // One process: its CUDA_VISIBLE_DEVICES as it was.
        QCOMPARE((*r.first("hello"))["cuda_visible_devices"], Json("3,5,7"));
        r = runEngine({"train", writeExperiment(m_dir, smallExperiment(), "gpus-none.strata.json"), "--events", "stdout",
                       "--run-dir", m_dir.filePath("gpus-none")},
                      600000, none);
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        QVERIFY((*r.first("hello")).contains("cuda_visible_devices"));
        QVERIFY((*r.first("hello"))["cuda_visible_devices"].is_null());
    }

    // train in a one-task Slurm step: the task Slurm names, on the step's cluster.
    void trainsInASlurmStep()
    {
        Json doc = smallExperiment();
        doc["training"]["epochs"] = 1;
        doc["cluster"] = Json::parse(R"({"slurm": {"port_base": 2345}})");
        const QString runDir = m_dir.filePath("slurm-run");
        const EngineResult r = runEngine({"train", writeExperiment(m_dir, doc, "slurm-train.strata.json"), "--events",
                                          "stdout", "--run-dir", runDir},
                                         600000, slurmStep("0", "1", "localhost", "1"));
        QVERIFY2(r.exitCode == 0, qPrintable(r.errText()));
        QCOMPARE(r.events.back()["type"].get<std::string>(), std::string("done"));
        QCOMPARE(r.events.back()["task"].get<std::string>(), std::string("worker:0"));
        QVERIFY(QFile::exists(runDir + "/events-worker-0.jsonl"));
        // The run directory's experiment has the step's cluster, and cluster.slurm kept.
        const Json written = Json::parse(readText(runDir + "/experiment.strata.json"));
        QCOMPARE(written["cluster"]["tasks"][0]["port"].get<int>(), 2345);
        QCOMPARE(written["cluster"]["slurm"]["port_base"].get<int>(), 2345);
    }

    void usageErrors()
    {
        const EngineResult r = runEngine({"train", "--events", "stdout"});
        expectError(r, 2, "usage", {"exactly one experiment file"});
        const EngineResult e = runEngine({"evaluate", writeExperiment(m_dir, smallExperiment(), "e.strata.json")});
        QCOMPARE(e.exitCode, 2);
        QVERIFY(e.errText().contains("needs --run-dir"));
        // The planner's probe: an experiment, and at least 2 ranks for its sweep (the probe's
        // measurements: tests/app/tst_plan_command.cpp).
        const EngineResult p = runEngine({"plan-probe", "--events", "stdout"});
        expectError(p, 2, "usage", {"exactly one experiment file"});
        const EngineResult ranks =
            runEngine({"plan-probe", writeExperiment(m_dir, smallExperiment(), "p.strata.json"), "--ranks", "1"});
        expectError(ranks, 2, "usage", {"--ranks must be 2 to 64"});
    }
};

QTEST_GUILESS_MAIN(TestEngineCli)
#include "tst_engine_cli.moc"
