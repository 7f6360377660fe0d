// Each task its own GPUs (task_gpus.h): the tasks that train on one host share its GPUs in task
// order, an even share or cluster.gpus_per_task each; picked from a CUDA_VISIBLE_DEVICES already
// set; tasks on other hosts, ps and evaluator tasks not counted; a lone task left alone, and a
// strategy of one process; too many GPUs asked refused; and cluster.gpus_per_task read and written.

#include "config_error_of.h"
#include "strata/schema/cluster_spec.h"
#include "strata/schema/experiment.h"
#include "strata/schema/task_gpus.h"

#include <QtTest>

using namespace strata::schema;

namespace {

// A cluster read on its own; fails the test on any problem.
ClusterSpec cluster(const QString& json)
{
    Problems problems;
    const Json document = Json::parse(json.toStdString());
    ClusterSpec c = readCluster(&document, "cluster", problems);
    if (!problems.empty())
        qWarning("%s", problems.list().front().str().c_str());
    return c;
}

// `tasks` (a JSON list of assignments) on the nodes "a" (localhost), "b" (b.example) and "a2"
// (127.0.0.1: the same machine as "a"), with gpus_per_task `perTask`.
QString onNodes(const QString& tasks, int perTask = 0)
{
    return QStringLiteral(R"({"nodes": [{"name": "a", "host": "localhost"}, {"name": "b", "host": "b.example"},
                                        {"name": "a2", "host": "127.0.0.1"}],
                             "tasks": %1, "gpus_per_task": %2})")
        .arg(tasks)
        .arg(perTask);
}

// Every task's CUDA_VISIBLE_DEVICES, "worker:0=0,1 worker:1=2,3" ("-" for none).
QString allTasks(const ClusterSpec& c, int64_t nodeGpus, const std::optional<std::string>& visible)
{
    QStringList out;
    for (const std::string& task : taskNames(c)) {
        const auto ids = taskCudaVisibleDevices(c, task, nodeGpus, visible);
        out << QString::fromStdString(task + "=" + ids.value_or("-"));
    }
    return out.join(' ');
}


using Visible = std::optional<std::string>;

} // namespace

Q_DECLARE_METATYPE(Visible)

class TestTaskGpus : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void split_data()
    {
        QTest::addColumn<QString>("tasks");
        QTest::addColumn<int>("perTask");
        QTest::addColumn<qint64>("nodeGpus");
        QTest::addColumn<Visible>("visible");
        QTest::addColumn<QString>("expected");

        const Visible unset;
        QTest::newRow("two workers, 4 GPUs") << R"([{"type": "worker", "node": "a", "count": 2}])" << 0 << qint64(4)
                                             << unset << "worker:0=0,1 worker:1=2,3";
        QTest::newRow("three workers, 8 GPUs: two each, two left")
            << R"([{"type": "worker", "node": "a", "count": 3}])" << 0 << qint64(8) << unset
            << "worker:0=0,1 worker:1=2,3 worker:2=4,5";
        QTest::newRow("four workers, 4 GPUs") << R"([{"type": "worker", "node": "a", "count": 4}])" << 0 << qint64(4)
                                              << unset << "worker:0=0 worker:1=1 worker:2=2 worker:3=3";
        QTest::newRow("four workers, 8 GPUs") << R"([{"type": "worker", "node": "a", "count": 4}])" << 0 << qint64(8)
                                              << unset << "worker:0=0,1 worker:1=2,3 worker:2=4,5 worker:3=6,7";
        QTest::newRow("chief first, then the workers")
            << R"([{"type": "worker", "node": "a", "count": 2}, {"type": "chief", "node": "a"}])" << 0 << qint64(6)
            << unset << "chief:0=0,1 worker:0=2,3 worker:1=4,5";
        QTest::newRow("more tasks than GPUs: one each, in turn")
            << R"([{"type": "worker", "node": "a", "count": 3}])" << 0 << qint64(2) << unset
            << "worker:0=0 worker:1=1 worker:2=0";
        QTest::newRow("gpus_per_task 1 of 8") << R"([{"type": "worker", "node": "a", "count": 2}])" << 1 << qint64(8)
                                              << unset << "worker:0=0 worker:1=1";
        QTest::newRow("gpus_per_task 3 of 8") << R"([{"type": "worker", "node": "a", "count": 2}])" << 3 << qint64(8)
                                              << unset << "worker:0=0,1,2 worker:1=3,4,5";
        QTest::newRow("gpus_per_task 4 of 8: all of them")
            << R"([{"type": "worker", "node": "a", "count": 2}])" << 4 << qint64(8) << unset
            << "worker:0=0,1,2,3 worker:1=4,5,6,7";
        QTest::newRow("gpus_per_task for a lone task") << R"([{"type": "worker", "node": "a"}])" << 2 << qint64(4)
                                                       << unset << "worker:0=0,1";
        QTest::newRow("a lone task: left alone") << R"([{"type": "worker", "node": "a"}])" << 0 << qint64(4) << unset
                                                 << "worker:0=-";
        QTest::newRow("no GPU") << R"([{"type": "worker", "node": "a", "count": 2}])" << 0 << qint64(0) << unset
                                << "worker:0=- worker:1=-";
        QTest::newRow("no GPU, gpus_per_task: nothing to give")
            << R"([{"type": "worker", "node": "a", "count": 2}])" << 1 << qint64(0) << unset << "worker:0=- worker:1=-";
        QTest::newRow("CUDA_VISIBLE_DEVICES set: picked from it")
            << R"([{"type": "worker", "node": "a", "count": 2}])" << 0 << qint64(8) << Visible("4,5,6,7")
            << "worker:0=4,5 worker:1=6,7";
        QTest::newRow("CUDA_VISIBLE_DEVICES of UUIDs, spaces")
            << R"([{"type": "worker", "node": "a", "count": 2}])" << 0 << qint64(0) << Visible("GPU-aa, GPU-bb")
            << "worker:0=GPU-aa worker:1=GPU-bb";
        QTest::newRow("CUDA_VISIBLE_DEVICES empty: no GPU")
            << R"([{"type": "worker", "node": "a", "count": 2}])" << 0 << qint64(8) << Visible("")
            << "worker:0=- worker:1=-";
        QTest::newRow("tasks on different nodes")
            << R"([{"type": "worker", "node": "a", "count": 2}, {"type": "worker", "node": "b", "count": 2},
                   {"type": "chief", "node": "b"}])"
            << 0 << qint64(4) << unset << "chief:0=0 worker:0=0,1 worker:1=2,3 worker:2=1 worker:3=2";
        QTest::newRow("a lone task on its node, two on another")
            << R"([{"type": "worker", "node": "a", "count": 2}, {"type": "worker", "node": "b"}])" << 0 << qint64(4)
            << unset << "worker:0=0,1 worker:1=2,3 worker:2=-";
        QTest::newRow("two nodes of one machine share its GPUs")
            << R"([{"type": "worker", "node": "a"}, {"type": "worker", "node": "a2"}])" << 0 << qint64(4) << unset
            << "worker:0=0,1 worker:1=2,3";
        QTest::newRow("ps and evaluator take none and are not counted")
            << R"([{"type": "chief", "node": "a"}, {"type": "worker", "node": "a"}, {"type": "ps", "node": "a", "count": 2},
                   {"type": "evaluator", "node": "a"}])"
            << 0 << qint64(4) << unset << "chief:0=0,1 worker:0=2,3 ps:0=- ps:1=- evaluator:0=-";
        QTest::newRow("ps only beside a lone worker") << R"([{"type": "worker", "node": "a"}, {"type": "ps", "node": "a"}])"
                                                      << 0 << qint64(4) << unset << "worker:0=- ps:0=-";
    }

    void split()
    {
        QFETCH(QString, tasks);
        QFETCH(int, perTask);
        QFETCH(qint64, nodeGpus);
        QFETCH(Visible, visible);
        QFETCH(QString, expected);
        QCOMPARE(allTasks(cluster(onNodes(tasks, perTask)), nodeGpus, visible), expected);
    }

    void share()
    {
        const ClusterSpec c = cluster(onNodes(R"([{"type": "worker", "node": "a", "count": 2}, {"type": "ps", "node": "a"},
                                                 {"type": "chief", "node": "b"}, {"type": "worker", "node": "a2"}])"));
        const auto share = [&](const char* task) {
            const GpuShare s = gpuShare(c, task);
            return QStringLiteral("%1/%2").arg(s.position).arg(s.sharing);
        };
        QCOMPARE(share("worker:0"), QStringLiteral("0/3"));
        QCOMPARE(share("worker:1"), QStringLiteral("1/3"));
        QCOMPARE(share("worker:2"), QStringLiteral("2/3"));
        QCOMPARE(share("chief:0"), QStringLiteral("0/1"));
        QCOMPARE(share("ps:0"), QStringLiteral("0/0"));
        QVERIFY(usesNodeGpus("chief") && usesNodeGpus("worker"));
        QVERIFY(!usesNodeGpus("ps") && !usesNodeGpus("evaluator"));
    }

    void tooManyAsked_data()
    {
        QTest::addColumn<QString>("tasks");
        QTest::addColumn<int>("perTask");
        QTest::addColumn<qint64>("nodeGpus");
        QTest::addColumn<Visible>("visible");
        QTest::addColumn<QString>("message");
        QTest::newRow("two tasks of 3 on 4") << R"([{"type": "worker", "node": "a", "count": 2}])" << 3 << qint64(4)
                                             << Visible()
                                             << "cluster.gpus_per_task: asks for more GPUs than the node has: 2 tasks "
                                                "using GPUs on the host of worker:0 with 3 GPUs each need 6, the node "
                                                "has 4";
        QTest::newRow("a lone task of 8 on 4") << R"([{"type": "worker", "node": "a"}])" << 8 << qint64(4) << Visible()
                                               << "cluster.gpus_per_task: asks for more GPUs than the node has: 1 task "
                                                  "using GPUs on the host of worker:0 with 8 GPUs each need 8, the node "
                                                  "has 4";
        QTest::newRow("more than CUDA_VISIBLE_DEVICES lists")
            << R"([{"type": "worker", "node": "a", "count": 2}])" << 2 << qint64(8) << Visible("0,1,2")
            << "cluster.gpus_per_task: asks for more GPUs than the node has: 2 tasks using GPUs on the host of "
               "worker:0 with 2 GPUs each need 4, the node has 3 (CUDA_VISIBLE_DEVICES lists them)";
    }

    void tooManyAsked()
    {
        QFETCH(QString, tasks);
        QFETCH(int, perTask);
        QFETCH(qint64, nodeGpus);
        QFETCH(Visible, visible);
        QFETCH(QString, message);
        const ClusterSpec c = cluster(onNodes(tasks, perTask));
        QCOMPARE(errorOf([&] { taskCudaVisibleDevices(c, "worker:0", nodeGpus, visible); }), message);
    }

    // A task the cluster does not have takes none (train reports it with the experiment).
    void unknownTask()
    {
        const ClusterSpec c = cluster(onNodes(R"([{"type": "worker", "node": "a", "count": 2}])"));
        QCOMPARE(taskCudaVisibleDevices(c, "worker:2", 4), std::optional<std::string>());
        QCOMPARE(gpuShare(c, "chief:0").sharing, int64_t(0));
    }

    // For an experiment: only under a strategy that runs as tasks.
    void byStrategy_data()
    {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<QString>("expected");
        QTest::newRow("MultiWorkerMirrored") << "MultiWorkerMirrored" << "2,3";
        QTest::newRow("ParameterServer") << "ParameterServer" << "2,3";
        QTest::newRow("Mirrored: one process, the whole node") << "Mirrored" << "-";
        QTest::newRow("OneDevice") << "OneDevice" << "-";
        QVERIFY(!runsAsTasks("TPU") && !runsAsTasks("CentralStorage"));
    }

    void byStrategy()
    {
        QFETCH(QString, strategy);
        QFETCH(QString, expected);
        Json doc = Json::parse(R"({
          "name": "t",
          "model": {"input_shape": [4], "layers": [{"type": "Dense", "units": 2}]},
          "data": {"source": {"type": "synthetic", "task": "classification", "features": 4}},
          "training": {"epochs": 1, "batch_size": 8}
        })");
        doc["strategy"] = {{"type", strategy.toStdString()}};
        // A strategy of one process has one task; gpus_per_task would give it half the node.
        QString tasks = R"([{"type": "worker", "node": "a"}])";
        if (runsAsTasks(strategy.toStdString()))
            tasks = R"([{"type": "chief", "node": "a"}, {"type": "worker", "node": "a"})" +
                    QString(strategy == "ParameterServer" ? R"(, {"type": "ps", "node": "b"})" : "") + "]";
        doc["cluster"] = Json::parse(onNodes(tasks, 2).toStdString());
        const Experiment e = parseExperiment(doc, "/tmp");
        QCOMPARE(QString::fromStdString(taskCudaVisibleDevices(e, "worker:0", 4).value_or("-")), expected);
    }

    void visibleList()
    {
        QCOMPARE(visibleDeviceList(""), std::vector<std::string>{});
        QCOMPARE(visibleDeviceList("0, 2,,GPU-ab12 "), (std::vector<std::string>{"0", "2", "GPU-ab12"}));
    }

    // cluster.gpus_per_task: its default from defaults.h, read, range-checked, written back only when set.
    void field()
    {
        QCOMPARE(ClusterSpec{}.gpusPerTask, int64_t(0));
        QCOMPARE(defaultInteger("cluster.gpus_per_task"), int64_t(0));
        const ClusterSpec two = cluster(onNodes(R"([{"type": "worker", "node": "a", "count": 2}])", 2));
        QCOMPARE(two.gpusPerTask, int64_t(2));
        const Json written = clusterToJson(two);
        QCOMPARE(written.value("gpus_per_task", 0), 2);
        Problems problems;
        QCOMPARE(readCluster(&written, "cluster", problems), two);
        QVERIFY(problems.empty());
        QVERIFY(!clusterToJson(ClusterSpec{}).contains("gpus_per_task"));

        const Json negative = Json::parse(onNodes(R"([{"type": "worker", "node": "a"}])", -1).toStdString());
        Problems refused;
        readCluster(&negative, "cluster", refused);
        QCOMPARE(refused.list().size(), size_t(1));
        QCOMPARE(QString::fromStdString(refused.list().front().str()),
                 QStringLiteral("cluster.gpus_per_task: must be between 0 and 65535, got -1"));
    }
};

QTEST_GUILESS_MAIN(TestTaskGpus)
#include "tst_task_gpus.moc"
