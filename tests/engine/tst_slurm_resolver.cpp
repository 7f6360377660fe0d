// The Slurm cluster resolver: every case of TensorFlow's slurm_cluster_resolver_test.py (each
// slot named after the test it ports), then hostlists and tasks-per-node lists beyond them,
// the errors TensorFlow raises (and those Strata adds), where Strata differs from TensorFlow,
// and the conversion to the engine's cluster.

#include "config_error_of.h"
#include "strata/schema/slurm_resolver.h"

#include <QtTest>

using namespace strata::schema;

namespace {

QStringList strings(const std::vector<std::string>& list)
{
    QStringList out;
    for (const auto& s : list)
        out << QString::fromStdString(s);
    return out;
}

QList<qint64> numbers(const std::vector<int64_t>& list)
{
    QList<qint64> out;
    for (const int64_t n : list)
        out << n;
    return out;
}


QString dump(const Json& json) { return QString::fromStdString(json.dump()); }

// TensorFlow's tests' step: three nodes.
Environment threeNodes(const char* procid, const char* tasks)
{
    return {{"SLURM_PROCID", procid}, {"SLURM_STEP_NUM_TASKS", tasks}, {"SLURM_STEP_NODELIST", "t02n13,t02n41,t02n43"}};
}

SlurmOptions psAndWorkers(int64_t workers)
{
    SlurmOptions o;
    o.jobs = std::map<std::string, int64_t>{{"ps", 1}, {"worker", workers}};
    o.portBase = 8888;
    return o;
}

} // namespace

class TestSlurmResolver : public QObject {
    Q_OBJECT

private slots:
    // ---- TensorFlow's slurm_cluster_resolver_test.py ----

    void test_expand_hostlist()
    {
        QCOMPARE(strings(expandHostlist("n1")), QStringList{"n1"});
        QCOMPARE(strings(expandHostlist("n[1,3]")), (QStringList{"n1", "n3"}));
        QCOMPARE(strings(expandHostlist("n[1-3]")), (QStringList{"n1", "n2", "n3"}));
        QCOMPARE(strings(expandHostlist("n[1-2],m5,o[3-4,6,7-9]")),
                 (QStringList{"n1", "n2", "m5", "o3", "o4", "o6", "o7", "o8", "o9"}));
        QCOMPARE(strings(expandHostlist("n[0001-0003],m5,o[009-011]")),
                 (QStringList{"n0001", "n0002", "n0003", "m5", "o009", "o010", "o011"}));
    }

    void test_expand_tasks_per_node()
    {
        QCOMPARE(numbers(expandTasksPerNode("2")), QList<qint64>{2});
        QCOMPARE(numbers(expandTasksPerNode("2,1,3")), (QList<qint64>{2, 1, 3}));
        QCOMPARE(numbers(expandTasksPerNode("3(x2),2,1")), (QList<qint64>{3, 3, 2, 1}));
        QCOMPARE(numbers(expandTasksPerNode("3(x2),2,11(x4)")), (QList<qint64>{3, 3, 2, 11, 11, 11, 11}));
        QCOMPARE(numbers(expandTasksPerNode("13(x10)")), QList<qint64>(10, 13));
    }

    void testSimpleRetrievalFromEnv()
    {
        Environment env = threeNodes("0", "3");
        env["SLURM_STEP_TASKS_PER_NODE"] = "1(x3)";
        env["CUDA_VISIBLE_DEVICES"] = "0";
        const SlurmCluster c = resolveSlurmCluster(env);
        QCOMPARE(dump(c.clusterJson()), QString(R"({"worker":["t02n13:8888","t02n41:8888","t02n43:8888"]})"));
        QCOMPARE(QString::fromStdString(c.taskName()), QString("worker:0"));
        // master("worker", 0) is "grpc://t02n13:8888": Strata has no master URL, the address is it.
        QCOMPARE(QString::fromStdString(c.jobs[0].second[0]), QString("t02n13:8888"));
        // num_accelerators() == {"GPU": 1}.
        QCOMPARE(c.gpusPerTask, int64_t(1));
        QCOMPARE(c.cudaVisibleDevices.value_or("unset"), std::string("0"));
    }

    void testSimpleSuccessfulRetrieval()
    {
        SlurmOptions o = psAndWorkers(2);
        o.tasksPerNode = std::vector<int64_t>{1};
        o.gpusPerNode = 1;
        o.gpusPerTask = 1;
        o.autoSetGpu = false;
        const SlurmCluster c = resolveSlurmCluster(threeNodes("0", "3"), o);
        QCOMPARE(dump(c.clusterJson()), QString(R"({"ps":["t02n13:8888"],"worker":["t02n41:8888","t02n43:8888"]})"));
        QCOMPARE(QString::fromStdString(c.taskName()), QString("ps:0"));
        QVERIFY(!c.cudaVisibleDevices);
    }

    void testSimpleMasterRetrieval()
    {
        // master() formats a task's address with the rpc layer: the addresses are what ports.
        SlurmOptions o = psAndWorkers(2);
        o.tasksPerNode = std::vector<int64_t>{1};
        o.gpusPerNode = 1;
        o.gpusPerTask = 1;
        o.autoSetGpu = false;
        const SlurmCluster c = resolveSlurmCluster(threeNodes("0", "3"), o);
        QCOMPARE(QString::fromStdString(c.jobs[1].first + " " + c.jobs[1].second[1]), QString("worker t02n43:8888"));
        QCOMPARE(QString::fromStdString(c.jobs[0].first + " " + c.jobs[0].second[0]), QString("ps t02n13:8888"));
    }

    void testTaskPerNodeNotSetRetrieval()
    {
        Environment env = threeNodes("0", "3");
        env["SLURM_STEP_TASKS_PER_NODE"] = "1(x3)";
        SlurmOptions o = psAndWorkers(2);
        o.gpusPerNode = 1;
        o.gpusPerTask = 1;
        o.autoSetGpu = false;
        const SlurmCluster c = resolveSlurmCluster(env, o);
        QCOMPARE(dump(c.clusterJson()), QString(R"({"ps":["t02n13:8888"],"worker":["t02n41:8888","t02n43:8888"]})"));
    }

    void testMultiTaskPerNodeRetrieval()
    {
        Environment env = threeNodes("1", "5");
        env["SLURM_STEP_TASKS_PER_NODE"] = "2(x2),1";
        env["CUDA_VISIBLE_DEVICES"] = "";
        SlurmOptions o = psAndWorkers(4);
        o.gpusPerNode = 2;
        o.gpusPerTask = 1;
        const SlurmCluster c = resolveSlurmCluster(env, o);
        QCOMPARE(dump(c.clusterJson()), QString(R"({"ps":["t02n13:8888"],"worker":["t02n13:8889","t02n41:8888",)"
                                                R"("t02n41:8889","t02n43:8888"]})"));
        QCOMPARE(QString::fromStdString(c.taskName()), QString("worker:0"));
        QCOMPARE(c.cudaVisibleDevices.value_or("unset"), std::string("1"));
    }

    void testMultipleGpusPerTaskRetrieval()
    {
        Environment env = threeNodes("1", "5");
        env["SLURM_STEP_TASKS_PER_NODE"] = "2(x2),1";
        env["CUDA_VISIBLE_DEVICES"] = "";
        SlurmOptions o = psAndWorkers(4);
        o.gpusPerNode = 4;
        o.gpusPerTask = 2;
        const SlurmCluster c = resolveSlurmCluster(env, o);
        QCOMPARE(dump(c.clusterJson()), QString(R"({"ps":["t02n13:8888"],"worker":["t02n13:8889","t02n41:8888",)"
                                                R"("t02n41:8889","t02n43:8888"]})"));
        QCOMPARE(c.cudaVisibleDevices.value_or("unset"), std::string("2,3"));
    }

    // ---- beyond TensorFlow's tests ----

    void hostlists_data()
    {
        QTest::addColumn<QString>("hostlist");
        QTest::addColumn<QStringList>("hosts");
        QTest::newRow("empty") << "" << QStringList{};
        QTest::newRow("zero padding") << "n[01-10]" << QStringList{"n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08", "n09", "n10"};
        QTest::newRow("width of the first bound") << "n[8-10]" << QStringList{"n8", "n9", "n10"};
        QTest::newRow("padded list") << "gpu[001,010-011]" << QStringList{"gpu001", "gpu010", "gpu011"};
        QTest::newRow("several groups") << "a[1-2],b3" << QStringList{"a1", "a2", "b3"};
        QTest::newRow("groups with dots and dashes") << "rack-1.n[1-2],rack-2.n[1]"
                                                     << QStringList{"rack-1.n1", "rack-1.n2", "rack-2.n1"};
        QTest::newRow("no prefix") << "[3-4]" << QStringList{"3", "4"};
        QTest::newRow("single in brackets") << "n[7]" << QStringList{"n7"};
        QTest::newRow("order and duplicates kept") << "b,a,b" << QStringList{"b", "a", "b"};
        QTest::newRow("trailing comma") << "n1," << QStringList{"n1"};
    }

    void hostlists()
    {
        QFETCH(QString, hostlist);
        QFETCH(QStringList, hosts);
        QCOMPARE(strings(expandHostlist(hostlist.toStdString())), hosts);
    }

    void malformedHostlists_data()
    {
        QTest::addColumn<QString>("hostlist");
        QTest::addColumn<QString>("why");
        QTest::newRow("unclosed") << "n[1-3" << "\"[\" without \"]\" in \"n[1-3\"";
        QTest::newRow("nested") << "n[1-[2]]" << "\"[\" inside brackets";
        QTest::newRow("closing only") << "n1]" << "\"]\" without \"[\"";
        QTest::newRow("text after the range") << "n[1-2]-ib" << "text after \"]\"";
        QTest::newRow("two ranges") << "n[1-2]x[1-2]" << "text after \"]\"";
        QTest::newRow("empty brackets") << "n[]" << "empty brackets";
        QTest::newRow("leading comma") << ",n1" << "an empty name before a \",\"";
        QTest::newRow("double comma") << "n1,,n2" << "an empty name before a \",\"";
        QTest::newRow("letters in the range") << "n[a-c]" << "\"a-c\" is not a number or a range";
        QTest::newRow("three bounds") << "n[1-2-3]" << "\"1-2-3\" is not a number or a range";
        QTest::newRow("empty in the list") << "n[1,,3]" << "\"\" is not a number or a range";
        QTest::newRow("open range") << "n[1-]" << "\"1-\" is not a number or a range";
        QTest::newRow("backwards") << "n[3-1]" << "the range \"3-1\" runs backwards";
        QTest::newRow("huge") << "n[0-99999999]" << "more than 1048576 hosts";
    }

    void malformedHostlists()
    {
        QFETCH(QString, hostlist);
        QFETCH(QString, why);
        const QString error = errorOf([&] { expandHostlist(hostlist.toStdString(), "SLURM_STEP_NODELIST"); });
        QVERIFY2(error.startsWith("SLURM_STEP_NODELIST: invalid hostlist \"" + hostlist + "\": "), qPrintable(error));
        QVERIFY2(error.contains(why), qPrintable(error));
    }

    void malformedTasksPerNode_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::newRow("empty") << "";
        QTest::newRow("letters") << "two";
        QTest::newRow("unclosed repeat") << "2(x3";
        QTest::newRow("no repeat count") << "2(x)";
        QTest::newRow("repeat without x") << "2(3)";
        QTest::newRow("negative") << "-1";
        QTest::newRow("empty part") << "2,,1";
        QTest::newRow("spaces") << "2, 1";
    }

    void malformedTasksPerNode()
    {
        QFETCH(QString, spec);
        const QString error = errorOf([&] { expandTasksPerNode(spec.toStdString(), "SLURM_STEP_TASKS_PER_NODE"); });
        QVERIFY2(error.startsWith("SLURM_STEP_TASKS_PER_NODE: invalid tasks-per-node list \"" + spec + "\""),
                 qPrintable(error));
    }

    void missingVariablesAreNamed_data()
    {
        QTest::addColumn<QString>("missing");
        for (const auto& name : slurmStepVariables())
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }

    void missingVariablesAreNamed()
    {
        QFETCH(QString, missing);
        Environment env = threeNodes("0", "3");
        env["SLURM_STEP_TASKS_PER_NODE"] = "1(x3)";
        QVERIFY(inSlurmStep(env));
        env.erase(missing.toStdString());
        QVERIFY(!inSlurmStep(env));
        const QString error = errorOf([&] { resolveSlurmCluster(env); });
        QVERIFY2(error.startsWith(missing + ": is not set: not running inside a Slurm step? Start each task with srun"),
                 qPrintable(error));
    }

    void variablesTheOptionsReplaceAreNotNeeded()
    {
        // As TensorFlow: jobs replace SLURM_STEP_NUM_TASKS, tasks_per_node SLURM_STEP_TASKS_PER_NODE,
        // and its dictionary form SLURM_STEP_NODELIST too.
        SlurmOptions o = psAndWorkers(2);
        o.tasksPerHost = std::map<std::string, int64_t>{{"b", 2}, {"a", 1}};
        const SlurmCluster c = resolveSlurmCluster({{"SLURM_PROCID", "2"}}, o);
        QCOMPARE(dump(c.clusterJson()), QString(R"({"ps":["a:8888"],"worker":["b:8888","b:8889"]})"));
        QCOMPARE(QString::fromStdString(c.taskName() + " " + c.host), QString("worker:1 b"));
    }

    void errorsAsTensorFlowRaisesThem_data()
    {
        QTest::addColumn<QString>("procid");
        QTest::addColumn<QString>("tasksPerNode");
        QTest::addColumn<QString>("jobs");
        QTest::addColumn<int>("gpusPerNode");
        QTest::addColumn<int>("gpusPerTask");
        QTest::addColumn<QString>("expected");
        QTest::newRow("more GPUs than the node has")
            << "0" << "2(x2),1" << "" << 2 << 2
            << "gpus_per_task: requested more GPUs per node than available: 2 tasks on a node with 2 GPUs each need 4, "
               "the node has 2 (gpus_per_node)";
        QTest::newRow("more tasks requested than the step has")
            << "0" << "2(x2),1" << "worker:6" << -1 << -1 << "jobs: requested 6 tasks but the Slurm step has 5";
        QTest::newRow("fewer tasks requested") << "0" << "2(x2),1" << "ps:1,worker:1" << -1 << -1
                                               << "jobs: requested 2 tasks but the Slurm step has 5";
        QTest::newRow("step tasks differ from the nodes' tasks")
            << "0" << "1(x3)" << "" << -1 << -1 << "jobs: requested 5 tasks but the Slurm step has 3";
        QTest::newRow("rank beyond the step") << "5" << "2(x2),1" << "" << -1 << -1
                                              << "SLURM_PROCID: is 5 but the step has only 5 tasks (ranks 0 to 4)";
        QTest::newRow("rank not a number") << "one" << "2(x2),1" << "" << -1 << -1
                                           << "SLURM_PROCID: \"one\" is not a whole number";
        QTest::newRow("negative rank") << "-1" << "2(x2),1" << "" << -1 << -1
                                       << "SLURM_PROCID: \"-1\" is not a whole number";
        QTest::newRow("counts for fewer nodes") << "0" << "2,3" << "" << -1 << -1
                                                << "SLURM_STEP_TASKS_PER_NODE: gives the tasks of 2 nodes, "
                                                   "SLURM_STEP_NODELIST names 3 nodes";
        QTest::newRow("negative job") << "0" << "2(x2),1" << "worker:-1" << -1 << -1 << "jobs.worker: must be at least 0";
    }

    void errorsAsTensorFlowRaisesThem()
    {
        QFETCH(QString, procid);
        QFETCH(QString, tasksPerNode);
        QFETCH(QString, jobs);
        QFETCH(int, gpusPerNode);
        QFETCH(int, gpusPerTask);
        QFETCH(QString, expected);
        Environment env = threeNodes(procid.toUtf8().constData(), "5");
        env["SLURM_STEP_TASKS_PER_NODE"] = tasksPerNode.toStdString();
        SlurmOptions o;
        if (!jobs.isEmpty()) {
            o.jobs.emplace();
            for (const QString& job : jobs.split(','))
                (*o.jobs)[job.section(':', 0, 0).toStdString()] = job.section(':', 1).toLongLong();
        }
        if (gpusPerNode >= 0)
            o.gpusPerNode = gpusPerNode;
        if (gpusPerTask >= 0)
            o.gpusPerTask = gpusPerTask;
        const QString error = errorOf([&] { resolveSlurmCluster(env, o); });
        QVERIFY2(error.startsWith(expected), qPrintable(error));
    }

    void defaultsAsTensorFlow()
    {
        // Every task a worker, ports from 8888 per host, the GPUs CUDA_VISIBLE_DEVICES lists shared
        // evenly among the most tasks on a node (4 / 2 = 2 each).
        Environment env = {{"SLURM_PROCID", "3"},
                           {"SLURM_STEP_NUM_TASKS", "5"},
                           {"SLURM_STEP_NODELIST", "n[1-3]"},
                           {"SLURM_STEP_TASKS_PER_NODE", "2(x2),1"},
                           {"CUDA_VISIBLE_DEVICES", "0,1,2,3"}};
        const SlurmCluster c = resolveSlurmCluster(env);
        QCOMPARE(dump(c.tfConfig()), QString(R"({"cluster":{"worker":["n1:8888","n1:8889","n2:8888","n2:8889","n3:8888"]},)"
                                             R"("task":{"type":"worker","index":3}})"));
        QCOMPARE(QString::fromStdString(c.host + " " + std::to_string(c.port)), QString("n2 8889"));
        QCOMPARE(c.gpusPerNode, int64_t(4));
        QCOMPARE(c.gpusPerTask, int64_t(2));
        QCOMPARE(c.cudaVisibleDevices.value_or("unset"), std::string("2,3"));
    }

    void jobsTakeRanksInNameOrder()
    {
        // chief < evaluator < ps < worker, as TensorFlow sorts the jobs.
        Environment env = {{"SLURM_PROCID", "1"}, {"SLURM_STEP_NODELIST", "n[1-2]"}, {"SLURM_STEP_TASKS_PER_NODE", "3,2"}};
        SlurmOptions o;
        o.jobs = std::map<std::string, int64_t>{{"worker", 2}, {"ps", 1}, {"chief", 1}, {"evaluator", 1}};
        o.portBase = 2222;
        const SlurmCluster c = resolveSlurmCluster(env, o);
        QCOMPARE(dump(c.clusterJson()), QString(R"({"chief":["n1:2222"],"evaluator":["n1:2223"],"ps":["n1:2224"],)"
                                                R"("worker":["n2:2222","n2:2223"]})"));
        QCOMPARE(QString::fromStdString(c.taskName()), QString("evaluator:0"));
    }

    void stepOrderIsKeptUnlikeTensorFlow()
    {
        // Slurm gives rank 2 to n10's first task only after n9's: TensorFlow's sort by name
        // (n10 before n9) would give it n10's address.
        Environment env = {{"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_STEP_NODELIST", "n[9-10]"},
                           {"SLURM_STEP_TASKS_PER_NODE", "1(x2)"}};
        const SlurmCluster c = resolveSlurmCluster(env);
        QCOMPARE(dump(c.clusterJson()), QString(R"({"worker":["n9:8888","n10:8888"]})"));
        QCOMPARE(QString::fromStdString(c.host), QString("n10"));
    }

    void hostNamedTwiceIsRefused()
    {
        Environment env = {{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_STEP_NODELIST", "a,b,a"},
                           {"SLURM_STEP_TASKS_PER_NODE", "1(x3)"}};
        QCOMPARE(errorOf([&] { resolveSlurmCluster(env); }),
                 QString("SLURM_STEP_NODELIST: names the host \"a\" twice"));
    }

    void gpus()
    {
        Environment env = {{"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_STEP_NODELIST", "n1"},
                           {"SLURM_STEP_TASKS_PER_NODE", "2"}};
        // No GPU anywhere: none per task, CUDA_VISIBLE_DEVICES left alone (TensorFlow fails).
        SlurmCluster c = resolveSlurmCluster(env);
        QCOMPARE(c.gpusPerTask, int64_t(0));
        QVERIFY(!c.cudaVisibleDevices);
        // The GPUs the process edge found, as TensorFlow's nvidia-smi count.
        SlurmOptions o;
        o.nodeGpus = 4;
        c = resolveSlurmCluster(env, o);
        QCOMPARE(c.cudaVisibleDevices.value_or("unset"), std::string("2,3"));
        // CUDA_VISIBLE_DEVICES wins over the GPUs found; its IDs are picked from (Slurm's --gres).
        env["CUDA_VISIBLE_DEVICES"] = "4,5";
        c = resolveSlurmCluster(env, o);
        QCOMPARE(c.gpusPerNode, int64_t(2));
        QCOMPARE(c.cudaVisibleDevices.value_or("unset"), std::string("5"));
        // Empty: no GPU (TensorFlow counts one).
        env["CUDA_VISIBLE_DEVICES"] = "";
        c = resolveSlurmCluster(env, o);
        QCOMPARE(c.gpusPerNode, int64_t(0));
        QVERIFY(!c.cudaVisibleDevices);
        // Fewer GPUs than tasks: none each (TensorFlow's default would be 0, and fail).
        env["CUDA_VISIBLE_DEVICES"] = "0";
        c = resolveSlurmCluster(env, o);
        QCOMPARE(c.gpusPerTask, int64_t(0));
        QVERIFY(!c.cudaVisibleDevices);
        // auto_set_gpu off: nothing to set.
        o.autoSetGpu = false;
        o.gpusPerNode = 2;
        c = resolveSlurmCluster(env, o);
        QCOMPARE(c.gpusPerTask, int64_t(1));
        QVERIFY(!c.cudaVisibleDevices);
    }

    void tasksPerNodeOverride()
    {
        Environment env = {{"SLURM_PROCID", "4"}, {"SLURM_STEP_NODELIST", "n[1-3]"}};
        SlurmOptions o;
        o.jobs = std::map<std::string, int64_t>{{"worker", 6}};
        o.tasksPerNode = expandTasksPerNode("2");
        SlurmCluster c = resolveSlurmCluster(env, o);
        QCOMPARE(QString::fromStdString(c.taskName() + " " + c.host + " " + std::to_string(c.port)), QString("worker:4 n3 8888"));
        o.tasksPerNode = expandTasksPerNode("3,2,1");
        c = resolveSlurmCluster(env, o);
        QCOMPARE(QString::fromStdString(c.host + " " + std::to_string(c.port)), QString("n2 8889"));
        o.tasksPerNode = expandTasksPerNode("3,3");
        QVERIFY(errorOf([&] { resolveSlurmCluster(env, o); }).startsWith("tasks_per_node: gives the tasks of 2 nodes"));
    }

    void portsBeyondTheRangeAreRefused()
    {
        Environment env = {{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_STEP_NODELIST", "n1"},
                           {"SLURM_STEP_TASKS_PER_NODE", "2"}};
        SlurmOptions o;
        o.portBase = 65535;
        QVERIFY(errorOf([&] { resolveSlurmCluster(env, o); }).startsWith("port_base: ports 65535 to 65536"));
    }

    void toTheEnginesCluster()
    {
        Environment env = {{"SLURM_PROCID", "0"}, {"SLURM_STEP_NODELIST", "gpu[01-02]"}, {"SLURM_STEP_TASKS_PER_NODE", "2(x2)"}};
        SlurmOptions o;
        o.jobs = std::map<std::string, int64_t>{{"chief", 1}, {"worker", 2}, {"ps", 1}};
        const ClusterSpec c = slurmClusterSpec(resolveSlurmCluster(env, o));
        QStringList rows;
        for (const TaskAddress& a : taskAddresses(c))
            rows << QString::fromStdString(a.name() + " " + a.address() + " " + a.node);
        QCOMPARE(rows, (QStringList{"chief:0 gpu01:8888 gpu01", "worker:0 gpu02:8888 gpu02", "worker:1 gpu02:8889 gpu02",
                                    "ps:0 gpu01:8889 gpu01"}));
        // A job name TensorFlow accepts but Strata does not run.
        o.jobs = std::map<std::string, int64_t>{{"master", 1}, {"worker", 3}};
        QCOMPARE(errorOf([&] { slurmClusterSpec(resolveSlurmCluster(env, o)); }),
                 QString("jobs.master: \"master\" is not a Strata task type (chief, worker, ps, evaluator): TensorFlow's "
                         "resolver accepts any job name, Strata trains with these only"));
        // TensorFlow's rules on a cluster still hold.
        o.jobs = std::map<std::string, int64_t>{{"chief", 2}, {"worker", 2}};
        QVERIFY(errorOf([&] { slurmClusterSpec(resolveSlurmCluster(env, o)); }).contains("at most one chief"));
    }

    void experimentSettingsGiveTheOptions()
    {
        SlurmSettings s;
        SlurmOptions o = slurmOptions(s);
        QVERIFY(!o.jobs);
        QVERIFY(!o.gpusPerTask);
        QCOMPARE(o.portBase, int64_t(8888));
        s.jobs = {{"worker", 3}};
        s.gpusPerTask = 2;
        s.portBase = 2222;
        o = slurmOptions(s);
        QCOMPARE(o.jobs->at("worker"), int64_t(3));
        QCOMPARE(o.gpusPerTask.value_or(0), int64_t(2));
        QCOMPARE(o.portBase, int64_t(2222));
    }
};

QTEST_GUILESS_MAIN(TestSlurmResolver)
#include "tst_slurm_resolver.moc"
