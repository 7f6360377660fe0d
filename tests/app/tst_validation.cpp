// app::validate(): every kind of problem with the field it concerns, named as the pages label
// it, devices that do not exist on the launching host, data that is not here, the model's
// per-layer shapes and parameter counts (also when other sections are wrong), replicas and
// global batch per strategy (MultiWorkerMirrored: the job's, over a local cluster;
// ParameterServer: one worker's batch, and what its cluster lacks), and notes (cores shared by
// a job's workers).

#include "app/experiment/experiment_document.h"
#include "app/experiment/field_labels.h"
#include "app/experiment/validation.h"

#include <QtTest>

using namespace strata::app;

Q_DECLARE_METATYPE(strata::app::HostCapabilities)

namespace {

// The default experiment with a JSON Patch (RFC 6902) applied.
Json patched(const char* patch)
{
    return ExperimentDocument::defaultExperiment().patch(Json::parse(patch));
}

QString listed(const QList<Problem>& problems)
{
    QStringList lines;
    for (const Problem& p : problems)
        lines << p.text();
    return lines.join('\n');
}

// The problem at exactly `path`, or nullptr.
const Problem* at(const QList<Problem>& problems, const QString& path)
{
    for (const Problem& p : problems)
        if (p.path == path)
            return &p;
    return nullptr;
}

const HostCapabilities kUnknownHost{};
const HostCapabilities kTwoCpus{2, 0, true};
const HostCapabilities kFourCpus{4, 0, true};
const HostCapabilities kTwoGpus{8, 2, true};

} // namespace

class TestValidation : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void defaultExperimentIsValid()
    {
        const Validation v = validate(ExperimentDocument::defaultExperiment(), QDir::currentPath(), kTwoCpus);
        QVERIFY2(v.ok(), qPrintable(listed(v.problems)));
        QVERIFY2(v.notes.isEmpty(), qPrintable(listed(v.notes)));
        QCOMPARE(v.strategy, QStringLiteral("OneDevice"));
        QCOMPARE(v.replicas, 1);
        QCOMPARE(v.perReplicaBatch, qint64(32));
        QCOMPARE(v.globalBatch, qint64(32));
    }

    void problems_data()
    {
        QTest::addColumn<QByteArray>("patch");
        QTest::addColumn<HostCapabilities>("host");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message"); // a part of the problem's message

        QTest::newRow("unknown layer field, did you mean")
            << QByteArray(R"([{"op": "move", "from": "/model/layers/1/units", "path": "/model/layers/1/unit"}])")
            << kUnknownHost << "model.layers[1].unit" << R"(did you mean "units")";
        QTest::newRow("unknown top-level field, did you mean")
            << QByteArray(R"([{"op": "add", "path": "/sed", "value": 1}])") << kUnknownHost << "sed"
            << R"(did you mean "seed")";
        QTest::newRow("unknown optimizer field, did you mean")
            << QByteArray(R"([{"op": "move", "from": "/training/optimizer/learning_rate", "path": "/training/optimizer/learning_rte"}])")
            << kUnknownHost << "training.optimizer.learning_rte" << R"(did you mean "learning_rate")";
        QTest::newRow("negative learning rate")
            << QByteArray(R"([{"op": "replace", "path": "/training/optimizer/learning_rate", "value": -1}])")
            << kUnknownHost << "training.optimizer.learning_rate" << "must be greater than 0";
        QTest::newRow("zero learning rate")
            << QByteArray(R"([{"op": "replace", "path": "/training/optimizer/learning_rate", "value": 0}])")
            << kUnknownHost << "training.optimizer.learning_rate" << "must be greater than 0";
        QTest::newRow("learning rate not a number")
            << QByteArray(R"([{"op": "replace", "path": "/training/optimizer/learning_rate", "value": "fast"}])")
            << kUnknownHost << "training.optimizer.learning_rate" << "fast";
        QTest::newRow("zero epochs")
            << QByteArray(R"([{"op": "replace", "path": "/training/epochs", "value": 0}])") << kUnknownHost
            << "training.epochs" << "0";
        QTest::newRow("unknown strategy, did you mean")
            << QByteArray(R"([{"op": "replace", "path": "/strategy", "value": {"type": "Mirored"}}])") << kUnknownHost
            << "strategy.type" << R"(did you mean "Mirrored")";
        QTest::newRow("TPU without fallback")
            << QByteArray(R"([{"op": "replace", "path": "/strategy", "value": {"type": "TPU"}}])") << kUnknownHost
            << "strategy.type" << "no TPU";
        QTest::newRow("layer that cannot take its input")
            << QByteArray(R"([{"op": "replace", "path": "/model/layers/0", "value": {"type": "Conv2D", "filters": 4, "kernel_size": 3}}])")
            << kUnknownHost << "model.layers[0]" << "cannot take input of shape (None, 28, 28)";
        QTest::newRow("OneDevice on a CPU this host does not have")
            << QByteArray(R"([{"op": "replace", "path": "/strategy/device", "value": "cpu:2"}])") << kTwoCpus
            << "strategy.device" << "cpu:2 does not exist on this host: it offers 2 logical CPU devices";
        QTest::newRow("OneDevice on a GPU of a host without one")
            << QByteArray(R"([{"op": "replace", "path": "/strategy/device", "value": "gpu:0"}])") << kTwoCpus
            << "strategy.device" << "gpu:0 does not exist on this host: no GPU was found";
        QTest::newRow("OneDevice on a GPU beyond the host's")
            << QByteArray(R"([{"op": "replace", "path": "/strategy/device", "value": "gpu:2"}])") << kTwoGpus
            << "strategy.device" << "gpu:2 does not exist on this host: it offers 2 GPUs";
        QTest::newRow("Mirrored over a CPU this host does not have")
            << QByteArray(R"([{"op": "replace", "path": "/strategy", "value": {"type": "Mirrored", "devices": ["cpu:0", "cpu:1", "cpu:5"]}}])")
            << kFourCpus << "strategy.devices[2]" << "cpu:5 does not exist on this host: it offers 4 logical CPU devices";
        QTest::newRow("CentralStorage computing on a CPU this host does not have")
            << QByteArray(R"([{"op": "replace", "path": "/strategy", "value": {"type": "CentralStorage", "compute_devices": ["cpu:0", "cpu:3"]}}])")
            << kTwoCpus << "strategy.compute_devices[1]" << "cpu:3 does not exist on this host";
        QTest::newRow("CentralStorage keeping its variables on a CPU this host does not have")
            << QByteArray(R"([{"op": "replace", "path": "/strategy", "value": {"type": "CentralStorage", "compute_devices": ["cpu:0", "cpu:1"], "parameter_device": "cpu:7"}}])")
            << kTwoCpus << "strategy.parameter_device" << "cpu:7 does not exist on this host";
        QTest::newRow("TPU's Mirrored fallback over a CPU this host does not have")
            << QByteArray(R"([{"op": "replace", "path": "/strategy", "value": {"type": "TPU", "fallback": "Mirrored", "devices": ["cpu:0", "cpu:2"]}}])")
            << kTwoCpus << "strategy.devices[1]" << "cpu:2 does not exist on this host";
    }

    void problems()
    {
        QFETCH(QByteArray, patch);
        QFETCH(HostCapabilities, host);
        QFETCH(QString, path);
        QFETCH(QString, message);
        const Validation v = validate(patched(patch.constData()), QDir::currentPath(), host);
        QVERIFY(!v.ok());
        const Problem* p = at(v.problems, path);
        QVERIFY2(p, qPrintable("no problem at " + path + " among:\n" + listed(v.problems)));
        QVERIFY2(p->message.contains(message), qPrintable(p->text()));
        QVERIFY(p->text().startsWith(path + ": "));
    }

    void devicesAreCheckedOnlyWhenTheHostIsKnown()
    {
        const Json doc = patched(R"([{"op": "replace", "path": "/strategy", "value": {"type": "Mirrored", "devices": ["cpu:0", "cpu:5"]}}])");
        QVERIFY(validate(doc, QDir::currentPath(), kUnknownHost).ok());
        QVERIFY(!validate(doc, QDir::currentPath(), kTwoCpus).ok());
        // More logical devices than cores is allowed when the experiment asks for them.
        const Json logical = patched(
            R"([{"op": "replace", "path": "/strategy", "value": {"type": "Mirrored", "devices": ["cpu:0", "cpu:5"], "logical_cpu_devices": 6}}])");
        const Validation v = validate(logical, QDir::currentPath(), kTwoCpus);
        QVERIFY2(v.ok(), qPrintable(listed(v.problems)));
        QCOMPARE(v.replicas, 2);
    }

    void everyProblemIsListed()
    {
        const Validation v = validate(patched(R"([
            {"op": "replace", "path": "/training/optimizer/learning_rate", "value": -1},
            {"op": "replace", "path": "/training/epochs", "value": 0},
            {"op": "replace", "path": "/strategy/device", "value": "cpu:9"}])"),
                                      QDir::currentPath(), kTwoCpus);
        QVERIFY(at(v.problems, "training.optimizer.learning_rate"));
        QVERIFY(at(v.problems, "training.epochs"));
        // Host devices are checked once the document itself reads; it does not here.
        QVERIFY2(v.problems.size() >= 2, qPrintable(listed(v.problems)));
    }

    void failedLayerAndItsRow()
    {
        // Flatten -> Dense(128) -> Conv2D: a rank-2 output cannot feed a Conv2D.
        const Validation v = validate(patched(R"([{"op": "add", "path": "/model/layers/-", "value": {"type": "Conv2D", "filters": 8, "kernel_size": 3}}])"),
                                      QDir::currentPath(), kUnknownHost);
        QVERIFY(!v.ok());
        QCOMPARE(v.failedLayer, 3);
        QCOMPARE(v.layers.size(), 4);
        // The layers before it are described; it has the reason, and no shape.
        QCOMPARE(v.layers[2].outputShape, QStringLiteral("(None, 10)"));
        QCOMPARE(v.layers[3].type, QStringLiteral("Conv2D"));
        QVERIFY(v.layers[3].outputShape.isEmpty());
        QVERIFY2(v.layers[3].error.contains("(None, 10)"), qPrintable(v.layers[3].error));
        const Problem* p = at(v.problems, "model.layers[3]");
        QVERIFY2(p, qPrintable(listed(v.problems)));
        QVERIFY2(p->message.contains("conv2d"), qPrintable(p->text()));

        // A model that fits has no failed layer.
        QCOMPARE(validate(ExperimentDocument::defaultExperiment(), QDir::currentPath(), kUnknownHost).failedLayer, -1);
    }

    void shapesAndParametersOfTheDefaultModel()
    {
        const Validation v = validate(ExperimentDocument::defaultExperiment(), QDir::currentPath(), kUnknownHost);
        QCOMPARE(v.inputShape, QStringLiteral("(None, 28, 28)"));
        QCOMPARE(v.layers.size(), 3);
        const struct {
            const char *name, *type, *shape;
            qint64 params;
        } expected[] = {{"flatten", "Flatten", "(None, 784)", 0},
                        {"dense", "Dense", "(None, 128)", 784 * 128 + 128},
                        {"dense_1", "Dense", "(None, 10)", 128 * 10 + 10}};
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(v.layers[i].name, QString::fromLatin1(expected[i].name));
            QCOMPARE(v.layers[i].type, QString::fromLatin1(expected[i].type));
            QCOMPARE(v.layers[i].outputShape, QString::fromLatin1(expected[i].shape));
            QCOMPARE(v.layers[i].params, expected[i].params);
            QVERIFY(v.layers[i].error.isEmpty());
        }
        QCOMPARE(v.layers[1].params, qint64(100480));
        QCOMPARE(v.layers[2].params, qint64(1290));
        QCOMPARE(v.totalParams, qint64(101770));
        QCOMPARE(v.nonTrainableParams, qint64(0));
    }

    // BatchNormalization's moving statistics count as parameters, and as non-trainable ones.
    void movingStatisticsAreNonTrainableParameters()
    {
        const Validation v = validate(patched(R"([{"op": "add", "path": "/model/layers/2",
                                                   "value": {"type": "BatchNormalization"}}])"),
                                      QDir::currentPath(), kUnknownHost);
        QVERIFY(v.ok());
        QCOMPARE(v.layers[2].type, QStringLiteral("BatchNormalization"));
        QCOMPARE(v.layers[2].params, qint64(4 * 128));
        QCOMPARE(v.totalParams, qint64(101770 + 4 * 128));
        QCOMPARE(v.nonTrainableParams, qint64(2 * 128));
    }

    void layerTableFillsWhenOtherSectionsHaveProblems()
    {
        const Validation v = validate(patched(R"([{"op": "replace", "path": "/training/optimizer/learning_rate", "value": -1},
                                                  {"op": "remove", "path": "/data"}])"),
                                      QDir::currentPath(), kUnknownHost);
        QVERIFY(!v.ok());
        QVERIFY2(at(v.problems, "data"), qPrintable(listed(v.problems)));
        QCOMPARE(v.layers.size(), 3);
        QCOMPARE(v.totalParams, qint64(101770));
    }

    void modelFromAFileBesideTheDocument()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile model(dir.filePath("model.json"));
        QVERIFY(model.open(QIODevice::WriteOnly));
        model.write(ExperimentDocument::defaultExperiment()["model"].dump().c_str());
        model.close();
        Json doc = ExperimentDocument::defaultExperiment();
        doc["model"] = "model.json";
        const Validation v = validate(doc, dir.path(), kUnknownHost);
        QVERIFY2(v.ok(), qPrintable(listed(v.problems)));
        QCOMPARE(v.totalParams, qint64(101770));
        // Resolved against the base directory: elsewhere the file is not there.
        const Validation elsewhere = validate(doc, QDir::rootPath(), kUnknownHost);
        QVERIFY(!elsewhere.ok());
        QVERIFY(elsewhere.layers.isEmpty());
    }

    void replicasAndGlobalBatch_data()
    {
        QTest::addColumn<QByteArray>("strategy");
        QTest::addColumn<HostCapabilities>("host");
        QTest::addColumn<QString>("trains");
        QTest::addColumn<int>("replicas");

        for (int n : {1, 2, 4, 8})
            QTest::addRow("Mirrored, every CPU of a %d-CPU host", n)
                << QByteArray(R"({"type": "Mirrored"})") << HostCapabilities{n, 0, true} << "Mirrored" << n;
        QTest::newRow("Mirrored, listed devices")
            << QByteArray(R"({"type": "Mirrored", "devices": ["cpu:0", "cpu:1", "cpu:2"]})") << kFourCpus
            << "Mirrored" << 3;
        QTest::newRow("Mirrored, logical CPU devices")
            << QByteArray(R"({"type": "Mirrored", "logical_cpu_devices": 6})") << kTwoCpus << "Mirrored" << 6;
        QTest::newRow("Mirrored, every GPU") << QByteArray(R"({"type": "Mirrored"})") << kTwoGpus << "Mirrored" << 2;
        QTest::newRow("CentralStorage, every CPU")
            << QByteArray(R"({"type": "CentralStorage"})") << kFourCpus << "CentralStorage" << 4;
        QTest::newRow("CentralStorage, listed devices")
            << QByteArray(R"({"type": "CentralStorage", "compute_devices": ["cpu:0", "cpu:1"]})") << kFourCpus
            << "CentralStorage" << 2;
        QTest::newRow("OneDevice") << QByteArray(R"({"type": "OneDevice"})") << kFourCpus << "OneDevice" << 1;
        QTest::newRow("short form") << QByteArray(R"("Mirrored")") << kFourCpus << "Mirrored" << 4;
        QTest::newRow("TPU trains under its fallback")
            << QByteArray(R"({"type": "TPU", "fallback": "Mirrored"})") << kTwoCpus << "Mirrored" << 2;
    }

    void replicasAndGlobalBatch()
    {
        QFETCH(QByteArray, strategy);
        QFETCH(HostCapabilities, host);
        QFETCH(QString, trains);
        QFETCH(int, replicas);
        Json doc = ExperimentDocument::defaultExperiment();
        doc["strategy"] = Json::parse(strategy.toStdString());
        doc["training"]["batch_size"] = 64;
        const Validation v = validate(doc, QDir::currentPath(), host);
        QVERIFY2(v.ok(), qPrintable(listed(v.problems)));
        QCOMPARE(v.strategy, trains);
        QCOMPARE(v.replicas, replicas);
        QCOMPARE(v.perReplicaBatch, qint64(64));
        QCOMPARE(v.globalBatch, qint64(64) * replicas);
    }

    void notes()
    {
        // CentralStorage on one device runs, but degenerates to OneDevice: a note, not a problem.
        const Validation one = validate(
            patched(R"([{"op": "replace", "path": "/strategy", "value": {"type": "CentralStorage", "compute_devices": ["cpu:0"]}}])"),
            QDir::currentPath(), kTwoCpus);
        QVERIFY2(one.ok(), qPrintable(listed(one.problems)));
        QCOMPARE(one.notes.size(), 1);
        QCOMPARE(one.notes[0].path, QStringLiteral("strategy.compute_devices"));
        QVERIFY2(one.notes[0].message.contains("degenerates to OneDevice"), qPrintable(one.notes[0].text()));
        QCOMPARE(one.replicas, 1);

        const Validation tpu = validate(
            patched(R"([{"op": "replace", "path": "/strategy", "value": {"type": "TPU", "fallback": "Mirrored"}}])"),
            QDir::currentPath(), kTwoCpus);
        QVERIFY(tpu.ok());
        QVERIFY2(at(tpu.notes, "strategy.type"), qPrintable(listed(tpu.notes)));
        QVERIFY(at(tpu.notes, "strategy.type")->message.contains("fallback"));

        // Two compute devices: nothing to note.
        QVERIFY(validate(patched(R"([{"op": "replace", "path": "/strategy", "value": {"type": "CentralStorage", "compute_devices": ["cpu:0", "cpu:1"]}}])"),
                         QDir::currentPath(), kTwoCpus)
                    .notes.isEmpty());

        // An evaluator beside the one training task runs nothing of its own: said, not refused.
        const Validation evaluator = validate(
            patched(R"([{"op": "add", "path": "/cluster", "value": {"tasks": [{"type": "worker", "node": "local"},
                                                                              {"type": "evaluator", "node": "local"}]}}])"),
            QDir::currentPath(), kTwoCpus);
        QVERIFY2(evaluator.ok(), qPrintable(listed(evaluator.problems)));
        QVERIFY2(at(evaluator.notes, "cluster.tasks"), qPrintable(listed(evaluator.notes)));
        QVERIFY(at(evaluator.notes, "cluster.tasks")->message.contains("evaluator task is not started"));
    }

    void multiWorkerMirroredOnALocalCluster_data()
    {
        QTest::addColumn<QByteArray>("strategy");
        QTest::addColumn<QByteArray>("tasks");
        QTest::addColumn<int>("workers");
        QTest::addColumn<int>("replicas");

        const QByteArray mwms = R"({"type": "MultiWorkerMirrored"})";
        const QByteArray twoDevices = R"({"type": "MultiWorkerMirrored", "devices": ["cpu:0", "cpu:1"]})";
        QTest::newRow("one worker, one replica") << mwms << QByteArray(R"([{"type": "worker", "node": "local"}])") << 1 << 1;
        QTest::newRow("two workers") << mwms << QByteArray(R"([{"type": "worker", "node": "local", "count": 2}])") << 2 << 2;
        QTest::newRow("two workers x two devices")
            << twoDevices << QByteArray(R"([{"type": "worker", "node": "local", "count": 2}])") << 2 << 4;
        QTest::newRow("a chief, two workers x two devices, an evaluator")
            << twoDevices
            << QByteArray(R"([{"type": "chief", "node": "local"}, {"type": "worker", "node": "local", "count": 2},
                              {"type": "evaluator", "node": "local"}])")
            << 3 << 6;
    }

    void multiWorkerMirroredOnALocalCluster()
    {
        QFETCH(QByteArray, strategy);
        QFETCH(QByteArray, tasks);
        QFETCH(int, workers);
        QFETCH(int, replicas);
        Json doc = ExperimentDocument::defaultExperiment();
        doc["strategy"] = Json::parse(strategy.toStdString());
        doc["cluster"] = {{"tasks", Json::parse(tasks.toStdString())}};
        doc["training"]["batch_size"] = 64;
        doc["training"]["threads"] = 1;
        const Validation v = validate(doc, QDir::currentPath(), HostCapabilities{16, 0, true});
        QVERIFY2(v.ok(), qPrintable(listed(v.problems)));
        // The evaluator is started under MultiWorkerMirrored: nothing to note.
        QVERIFY2(v.notes.isEmpty(), qPrintable(listed(v.notes)));
        QCOMPARE(v.strategy, QString("MultiWorkerMirrored"));
        QCOMPARE(v.workers, workers);
        QCOMPARE(v.replicas, replicas);
        QCOMPARE(v.perReplicaBatch, qint64(64));
        QCOMPARE(v.globalBatch, qint64(64) * replicas);
    }

    void multiWorkerMirroredProblemsAndNotes()
    {
        const auto job = [](const char* strategy, int workers, int threads = 0) {
            Json doc = ExperimentDocument::defaultExperiment();
            doc["strategy"] = Json::parse(strategy);
            doc["cluster"] = {{"tasks", {{{"type", "worker"}, {"node", "local"}, {"count", workers}}}}};
            if (threads > 0)
                doc["training"]["threads"] = threads;
            return doc;
        };
        // Each worker's devices must exist here: every worker runs on this machine.
        const Validation missing =
            validate(job(R"({"type": "MultiWorkerMirrored", "devices": ["cpu:0", "cpu:3"]})", 2), QDir::currentPath(), kTwoCpus);
        QVERIFY(at(missing.problems, "strategy.devices[1]"));
        QVERIFY2(at(missing.problems, "strategy.devices[1]")->message.contains("cpu:3 does not exist on this host"),
                 qPrintable(listed(missing.problems)));

        // A worker on a remote node: launched over SSH; the devices are checked on the nodes
        // before launch (node_check.h), not against this host.
        Json remote = job(R"({"type": "MultiWorkerMirrored", "devices": ["cpu:0", "cpu:3"]})", 1);
        remote["cluster"]["nodes"] = {{{"name", "local"}, {"host", "localhost"}},
                                      {{"name", "gpu1"}, {"host", "gpu1.example"}, {"auth", "agent"}}};
        remote["cluster"]["tasks"].push_back({{"type", "worker"}, {"node", "gpu1"}});
        const Validation accepted = validate(remote, QDir::currentPath(), kTwoCpus);
        QVERIFY2(accepted.ok(), qPrintable(listed(accepted.problems)));
        QCOMPARE(accepted.workers, 2);
        QCOMPARE(accepted.replicas, 4);

        // Two workers on four cores, a replica each: the engine gives each two threads; fits.
        const Validation fits = validate(job(R"({"type": "MultiWorkerMirrored"})", 2), QDir::currentPath(), kFourCpus);
        QVERIFY2(fits.ok() && fits.notes.isEmpty(), qPrintable(listed(fits.problems + fits.notes)));
        // Two workers x two replicas on two cores: at least one thread each, four in all.
        const Validation crowded = validate(job(R"({"type": "MultiWorkerMirrored", "devices": ["cpu:0", "cpu:1"]})", 2),
                                            QDir::currentPath(), kTwoCpus);
        QVERIFY2(crowded.ok(), qPrintable(listed(crowded.problems)));
        QVERIFY2(at(crowded.notes, "cluster.tasks"), qPrintable(listed(crowded.notes)));
        QVERIFY2(at(crowded.notes, "cluster.tasks")->message.startsWith("4 compute threads (2 training tasks x 2 replicas "
                                                                        "x 1 GEMM threads) on the 2 cores"),
                 qPrintable(listed(crowded.notes)));
        // Threads set by hand are taken as they are.
        const Validation byHand = validate(job(R"({"type": "MultiWorkerMirrored"})", 2, 4), QDir::currentPath(), kFourCpus);
        QVERIFY2(at(byHand.notes, "training.threads"), qPrintable(listed(byHand.notes)));
        QVERIFY(at(byHand.notes, "training.threads")->message.startsWith("8 compute threads"));
        // Nothing is said of a host it does not know.
        QVERIFY(validate(job(R"({"type": "MultiWorkerMirrored"})", 8), QDir::currentPath(), kUnknownHost).notes.isEmpty());
    }

    void parameterServerClusters_data()
    {
        QTest::addColumn<QByteArray>("tasks");
        QTest::addColumn<QStringList>("problems"); // at cluster.tasks, each a part of the message
        QTest::addColumn<int>("workers");

        QTest::newRow("a chief, two workers, a ps task")
            << QByteArray(R"([{"type": "chief", "node": "local"}, {"type": "worker", "node": "local", "count": 2},
                              {"type": "ps", "node": "local"}])")
            << QStringList{} << 2;
        QTest::newRow("with an evaluator")
            << QByteArray(R"([{"type": "chief", "node": "local"}, {"type": "worker", "node": "local"},
                              {"type": "ps", "node": "local", "count": 2}, {"type": "evaluator", "node": "local"}])")
            << QStringList{} << 1;
        QTest::newRow("no chief")
            << QByteArray(R"([{"type": "worker", "node": "local", "count": 2}, {"type": "ps", "node": "local"}])")
            << QStringList{"exactly one chief task (the coordinator"} << 2;
        QTest::newRow("no ps")
            << QByteArray(R"([{"type": "chief", "node": "local"}, {"type": "worker", "node": "local"}])")
            << QStringList{"at least one ps task"} << 1;
        QTest::newRow("only a chief")
            << QByteArray(R"([{"type": "chief", "node": "local"}])")
            << QStringList{"at least one worker task", "at least one ps task"} << 0;
    }

    // ParameterServer's cluster as the engine checks it, its problems at cluster.tasks; its
    // replicas are its workers (the chief coordinates, the ps tasks hold the variables).
    void parameterServerClusters()
    {
        QFETCH(QByteArray, tasks);
        QFETCH(QStringList, problems);
        QFETCH(int, workers);
        Json doc = ExperimentDocument::defaultExperiment();
        doc["strategy"] = {{"type", "ParameterServer"}, {"partitioner", {{"type", "FixedShards"}, {"num_shards", 2}}},
                           {"max_staleness", 2}};
        doc["cluster"] = {{"tasks", Json::parse(tasks.toStdString())}};
        doc["training"]["batch_size"] = 32;
        const Validation v = validate(doc, QDir::currentPath(), HostCapabilities{16, 0, true});
        QStringList found;
        for (const Problem& p : v.problems) {
            QCOMPARE(p.path, QString("cluster.tasks"));
            found << p.message;
        }
        QCOMPARE(found.size(), problems.size());
        for (int i = 0; i < problems.size(); ++i)
            QVERIFY2(found[i].contains(problems[i]), qPrintable(found[i]));
        if (!problems.isEmpty())
            return;
        QCOMPARE(v.strategy, QString("ParameterServer"));
        QCOMPARE(v.workers, workers);
        QCOMPARE(v.replicas, workers);
        // Each step applies one worker's batch (the engine's ParameterServerStrategy: its
        // placement's global_batch_size, and 60,000 / 32 = 1,875 steps per epoch).
        QCOMPARE(v.globalBatch, qint64(32));
        QVERIFY2(v.notes.isEmpty(), qPrintable(listed(v.notes)));
    }

    void parameterServerOptions()
    {
        const auto strategy = [](const char* json) {
            Json doc = ExperimentDocument::defaultExperiment();
            doc["strategy"] = Json::parse(json);
            doc["cluster"] = {{"tasks", {{{"type", "chief"}, {"node", "local"}}, {{"type", "worker"}, {"node", "local"}},
                                         {{"type", "ps"}, {"node", "local"}}}}};
            return validate(doc, QDir::currentPath(), kFourCpus);
        };
        QVERIFY(strategy(R"({"type": "ParameterServer"})").ok());
        QVERIFY(at(strategy(R"({"type": "ParameterServer", "partitioner": {"type": "FixedShards"}})").problems,
                   "strategy.partitioner.num_shards"));
        QVERIFY(at(strategy(R"({"type": "ParameterServer", "partitioner": {"type": "MaxSize"}})").problems,
                   "strategy.partitioner.max_shard_bytes"));
        QVERIFY(at(strategy(R"({"type": "ParameterServer", "max_staleness": -2})").problems, "strategy.max_staleness"));
        QVERIFY(strategy(R"({"type": "ParameterServer", "partitioner": {"type": "MinSize", "min_shard_bytes": 1024,
                             "max_shards": 4}, "max_staleness": 0, "timeout_seconds": 3})")
                    .ok());
    }

    // Problems read with the pages' labels and 1-based layer numbers, not JSON paths.
    void problemsNamedAsThePagesLabelThem()
    {
        Json doc = ExperimentDocument::defaultExperiment();
        doc["model"]["layers"][1]["units"] = 0;
        doc["training"]["batch_size"] = 0;
        const Validation v = validate(doc, QDir::currentPath(), kTwoCpus);
        const Problem* units = at(v.problems, "model.layers[1].units");
        QVERIFY2(units, qPrintable(listed(v.problems)));
        QCOMPARE(units->field, QString("Model: layer 2 (%1): units").arg(QString::fromStdString(doc["model"]["layers"][1]["type"].get<std::string>())));
        QVERIFY2(units->labelled().startsWith(units->field + ": must be"), qPrintable(units->labelled()));
        const Problem* batch = at(v.problems, "training.batch_size");
        QVERIFY2(batch, qPrintable(listed(v.problems)));
        QCOMPARE(batch->field, QString("Training: Batch size per replica"));
    }

    void fieldLabels_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("label");
        QTest::newRow("a field") << "training.epochs" << "Training: Epochs";
        QTest::newRow("the seed") << "seed" << "Training: Seed";
        QTest::newRow("nested") << "training.checkpoint.every_epochs" << "Training: Checkpoints: Every N epochs";
        QTest::newRow("not in the table") << "training.optimizer.beta_1" << "Training: Optimizer: beta_1";
        QTest::newRow("a layer") << "model.layers[0]" << "Model: layer 1 (Flatten)";
        QTest::newRow("a layer's field") << "model.layers[2].activation" << "Model: layer 3 (Dense): activation";
        QTest::newRow("a layer beyond the list") << "model.layers[9].units" << "Model: layer 10: units";
        QTest::newRow("a task row") << "cluster.tasks[0].count" << "Cluster: Task assignment: row 1 (worker): Count";
        QTest::newRow("a node") << "cluster.nodes[0].ssh_port" << "Cluster: Nodes: node 1 (local): SSH port";
        QTest::newRow("the tasks") << "cluster.tasks" << "Cluster: Task assignment";
        QTest::newRow("a device") << "strategy.devices[1]" << "Strategy: Devices of each worker: device 2";
        QTest::newRow("the strategy's type") << "strategy.type" << "Strategy";
        QTest::newRow("the data directory") << "data.source.dir" << "Data: Dataset: Directory";
        QTest::newRow("outside the pages") << "strata" << "strata";
        QTest::newRow("the whole document") << "" << "";
    }

    void fieldLabels()
    {
        QFETCH(QString, path);
        QFETCH(QString, label);
        Json doc = ExperimentDocument::defaultExperiment();
        doc["strategy"] = {{"type", "MultiWorkerMirrored"}};
        doc["cluster"] = {{"nodes", {{{"name", "local"}, {"host", "localhost"}}}},
                          {"tasks", {{{"type", "worker"}, {"node", "local"}, {"count", 0}}}}};
        QVERIFY(doc["model"]["layers"][0]["type"] == "Flatten" && doc["model"]["layers"][2]["type"] == "Dense");
        QCOMPARE(fieldLabel(path, doc), label);
    }

    void fieldPaths()
    {
        QCOMPARE(fieldPath("/model/layers/1/units"), QString("model.layers[1].units"));
        QCOMPARE(fieldPath("/training/epochs"), QString("training.epochs"));
        QCOMPARE(fieldPath("/seed"), QString("seed"));
    }

    // The data is checked where the job trains: here, the directory must hold the files.
    void dataIsCheckedBeforeLaunch()
    {
        QTemporaryDir empty;
        QVERIFY(empty.isValid());
        Json doc = ExperimentDocument::defaultExperiment();
        doc["data"]["source"] = {{"type", "fashion_mnist"}, {"dir", "/nonexistent/fashion"}};
        const Validation missing = validate(doc, QDir::currentPath(), kUnknownHost);
        const Problem* dir = at(missing.problems, "data.source.dir");
        QVERIFY2(dir, qPrintable(listed(missing.problems)));
        QVERIFY2(dir->message.contains("/nonexistent/fashion: directory not found"), qPrintable(dir->message));
        QCOMPARE(dir->field, QString("Data: Dataset: Directory"));
        // Also while other sections have problems: all of them at once.
        doc["training"]["batch_size"] = 0;
        const Validation both = validate(doc, QDir::currentPath(), kUnknownHost);
        QVERIFY2(at(both.problems, "data.source.dir") && at(both.problems, "training.batch_size"),
                 qPrintable(listed(both.problems)));
        doc["training"]["batch_size"] = 32;

        doc["data"]["source"]["dir"] = empty.path().toStdString();
        const Validation noFiles = validate(doc, QDir::currentPath(), kUnknownHost);
        QVERIFY2(at(noFiles.problems, "data.source.dir"), qPrintable(listed(noFiles.problems)));
        QVERIFY(at(noFiles.problems, "data.source.dir")->message.contains("train-images-idx3-ubyte.gz: file not found"));

        // An idx file: the field naming it.
        doc["data"]["source"] = {{"type", "idx"},
                                 {"train_images", "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"},
                                 {"train_labels", "labels-that-are-not-here.gz"}};
        const Validation idx = validate(doc, empty.path(), kUnknownHost);
        QVERIFY2(at(idx.problems, "data.source.train_labels"), qPrintable(listed(idx.problems)));
        QCOMPARE(idx.problems.size(), 1);

        // Workers on a remote node read their own data (checked on the node before launch).
        doc["data"]["source"] = {{"type", "fashion_mnist"}, {"dir", "/nonexistent/fashion"}};
        doc["cluster"] = {{"nodes", {{{"name", "gpu1"}, {"host", "gpu1.example"}, {"auth", "agent"}}}},
                          {"tasks", {{{"type", "worker"}, {"node", "gpu1"}}}}};
        const Validation remote = validate(doc, QDir::currentPath(), kUnknownHost);
        QVERIFY2(remote.ok(), qPrintable(listed(remote.problems)));
    }

    void notAnObject()
    {
        const Validation v = validate(Json::array({1, 2}), QDir::currentPath(), kUnknownHost);
        QVERIFY(!v.ok());
        QVERIFY(v.layers.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestValidation)
#include "tst_validation.moc"
