// ClusterEditing: the default cluster, edits and their undo steps, a node's work directory kept
// through edits, the unattended stop, node renames and removals reaching the assignments, the
// task list, TF_CONFIG previews, import (good, missing, malformed JSON, bad TF_CONFIG), export
// then re-import, malformed clusters (no crash, validation names the field, numbers shown as
// written), and a strategy chosen with the tasks it needs (one undo step; a remote cluster is
// left alone) or set up on this machine in one call; a Slurm job: switching to it and back
// (the nodes and tasks kept, one undo step each), its defaults from the tasks, one undo step
// per field, numbers as written, its jobs and tasks, the job script previewed; what the Cluster
// page says of each task's GPUs (taskGpusText) before and after Check nodes.

#include "app/experiment/cluster_editing.h"
#include "app/experiment/task_gpus_text.h"
#include "app/launch/backends/slurm/job_script.h"

#include <QtTest>

#include <algorithm>

using namespace strata::app;

namespace {

const char* kCluster = R"({
  "nodes": [
    {"name": "local", "host": "localhost", "ssh_port": 22, "user": "", "auth": "none", "key_file": "", "engine": ""},
    {"name": "gpu1", "host": "gpu1.example", "ssh_port": 2200, "user": "ml", "auth": "agent", "key_file": "", "engine": ""}
  ],
  "tasks": [
    {"type": "chief", "node": "local", "count": 1, "port": 0},
    {"type": "worker", "node": "local", "count": 2, "port": 0},
    {"type": "worker", "node": "gpu1", "count": 1, "port": 2222},
    {"type": "ps", "node": "gpu1", "count": 1, "port": 0},
    {"type": "evaluator", "node": "local", "count": 1, "port": 0}
  ]
})";

// A document with kCluster (or `cluster`), set as one edit.
void setCluster(ExperimentDocument& document, const Json& cluster = Json::parse(kCluster))
{
    Json json = document.json();
    json["cluster"] = cluster;
    document.replace(json, "test cluster");
}

QStringList nodeRows(const ClusterEditing& editing)
{
    QStringList out;
    for (const ClusterNode& n : editing.nodes())
        out << QStringList{n.name, n.host, QString::number(n.sshPort), n.user, n.auth, n.keyFile, n.engine}.join('|');
    return out;
}

QStringList assignmentRows(const ClusterEditing& editing)
{
    QStringList out;
    for (const ClusterTaskAssignment& a : editing.assignments())
        out << QStringList{a.type, a.node, QString::number(a.count), QString::number(a.port)}.join('|');
    return out;
}

bool hasProblem(const ExperimentDocument& document, const QString& path, const QString& words)
{
    for (const Problem& p : document.validation().problems)
        if (p.path == path && p.message.contains(words))
            return true;
    return false;
}

QString problemsText(const ExperimentDocument& document)
{
    QStringList lines;
    for (const Problem& p : document.validation().problems)
        lines << p.text();
    return lines.join('\n');
}

void writeFile(const QString& path, const QByteArray& contents)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(contents);
}

} // namespace

class TestClusterEditing : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void defaultClusterIsShown()
    {
        ExperimentDocument document;
        const ClusterEditing editing(document);
        QVERIFY(!document.json().contains("cluster"));
        QCOMPARE(nodeRows(editing), QStringList{"local|localhost|22||none||"});
        QCOMPARE(assignmentRows(editing), QStringList{"worker|local|1|0"});
        QCOMPARE(editing.tasks(), QStringList{"worker:0"});
        QCOMPARE(ClusterEditing::taskTypes(), (QStringList{"chief", "worker", "ps", "evaluator"}));
        QVERIFY2(document.validation().ok(), qPrintable(problemsText(document)));
    }

    void firstEditWritesTheDefaultPlusTheChange()
    {
        ExperimentDocument document;
        ClusterEditing editing(document);
        editing.addNode({"gpu1", "gpu1.example", 22, {}, "agent", {}, {}});
        QCOMPARE(nodeRows(editing), (QStringList{"local|localhost|22||none||", "gpu1|gpu1.example|22||agent||"}));
        QCOMPARE(assignmentRows(editing), QStringList{"worker|local|1|0"});
        QCOMPARE(document.value("/cluster/nodes/1/host"), Json("gpu1.example"));
        // Written where experimentToJson writes it: after the strategy.
        std::vector<std::string> keys;
        for (const auto& [key, value] : document.json().items())
            keys.push_back(key);
        const auto strategy = std::find(keys.begin(), keys.end(), "strategy");
        QVERIFY(strategy != keys.end() && *(strategy + 1) == "cluster");
        QCOMPARE(document.undoLabel(), QString("Add node gpu1"));
        document.undo();
        QVERIFY(!document.json().contains("cluster"));
        QVERIFY(!document.canUndo());
        document.redo();
        QCOMPARE(editing.nodes().size(), qsizetype(2));
    }

    void everyEditIsOneUndoStep()
    {
        ExperimentDocument document;
        ClusterEditing editing(document);
        setCluster(document);
        const Json original = document.json();
        editing.addAssignment({"worker", "gpu1", 1, 0});
        QCOMPARE(assignmentRows(editing).last(), QString("worker|gpu1|1|0"));
        editing.updateAssignment(5, {"worker", "gpu1", 3, 2300});
        QCOMPARE(assignmentRows(editing).last(), QString("worker|gpu1|3|2300"));
        editing.removeAssignment(0);
        QCOMPARE(assignmentRows(editing).first(), QString("worker|local|2|0"));
        editing.updateNode(1, {"gpu1", "gpu1.lab", 22, "ml", "key", "~/.ssh/id", {}});
        QCOMPARE(nodeRows(editing)[1], QString("gpu1|gpu1.lab|22|ml|key|~/.ssh/id|"));
        // An edit that changes nothing and rows out of range make no step.
        editing.updateNode(1, {"gpu1", "gpu1.lab", 22, "ml", "key", "~/.ssh/id", {}});
        editing.updateNode(7, {"x", "x", 22, {}, "agent", {}, {}});
        editing.removeNode(-1);
        editing.updateAssignment(99, {"worker", "local", 1, 0});
        editing.removeAssignment(99);
        for (int step = 0; step < 4; ++step)
            document.undo();
        QCOMPARE(document.json(), original);
        QCOMPARE(document.undoLabel(), QString("test cluster"));
    }

    void workDirIsKeptWhenANodeIsEdited()
    {
        ExperimentDocument document;
        ClusterEditing editing(document);
        Json cluster = Json::parse(kCluster);
        cluster["nodes"][1]["work_dir"] = "/scratch/strata";
        setCluster(document, cluster);
        QCOMPARE(editing.nodes()[1].workDir, QString("/scratch/strata"));
        // Another field edited: the work directory stays.
        ClusterNode node = editing.nodes()[1];
        node.user = "alice";
        editing.updateNode(1, node);
        QCOMPARE(document.value("/cluster/nodes/1/work_dir"), Json("/scratch/strata"));
        QCOMPARE(document.value("/cluster/nodes/1/user"), Json("alice"));
        // Edited itself, and undone.
        node.workDir = "/data/runs";
        editing.updateNode(1, node);
        QCOMPARE(document.value("/cluster/nodes/1/work_dir"), Json("/data/runs"));
        document.undo();
        QCOMPARE(editing.nodes()[1].workDir, QString("/scratch/strata"));
        QVERIFY2(!problemsText(document).contains("work_dir"), qPrintable(problemsText(document)));
    }

    void stopUnattendedIsOneUndoStep()
    {
        ExperimentDocument document;
        ClusterEditing editing(document);
        QCOMPARE(editing.stopUnattendedSeconds(), qint64(0)); // the default: never
        setCluster(document);
        const Json before = document.json();
        editing.setStopUnattendedSeconds(600);
        QCOMPARE(document.value("/cluster/stop_unattended_seconds"), Json(600));
        QCOMPARE(editing.stopUnattendedSeconds(), qint64(600));
        QCOMPARE(document.undoLabel(), QString("Stop the job after 600 s unattended"));
        QCOMPARE(editing.nodes().size(), qsizetype(2)); // nothing else changed
        document.undo();
        QCOMPARE(document.json(), before);
        QCOMPARE(editing.stopUnattendedSeconds(), qint64(0));
        editing.setStopUnattendedSeconds(30);
        QVERIFY2(!problemsText(document).contains("stop_unattended"), qPrintable(problemsText(document)));
    }

    void renamingANodeRenamesItInTheAssignments()
    {
        ExperimentDocument document;
        ClusterEditing editing(document);
        setCluster(document);
        const Json original = document.json();
        editing.updateNode(0, {"this", "localhost", 22, {}, "none", {}, {}});
        QCOMPARE(assignmentRows(editing), (QStringList{"chief|this|1|0", "worker|this|2|0", "worker|gpu1|1|2222",
                                                        "ps|gpu1|1|0", "evaluator|this|1|0"}));
        QCOMPARE(document.undoLabel(), QString("Rename node local to this"));
        QVERIFY(!problemsText(document).contains("no node named"));
        document.undo();
        QCOMPARE(document.json(), original);
    }

    void removingANodeRemovesItsAssignments()
    {
        ExperimentDocument document;
        ClusterEditing editing(document);
        setCluster(document);
        const Json original = document.json();
        editing.removeNode(1);
        QCOMPARE(nodeRows(editing), QStringList{"local|localhost|22||none||"});
        QCOMPARE(assignmentRows(editing), (QStringList{"chief|local|1|0", "worker|local|2|0", "evaluator|local|1|0"}));
        document.undo();
        QCOMPARE(document.json(), original);
    }

    void tasksInTensorFlowOrder()
    {
        ExperimentDocument document;
        ClusterEditing editing(document);
        setCluster(document);
        QCOMPARE(editing.tasks(),
                 (QStringList{"chief:0", "worker:0", "worker:1", "worker:2", "ps:0", "evaluator:0"}));
    }

    void previewForEachTask_data()
    {
        QTest::addColumn<QString>("task");
        for (const char* task : {"chief:0", "worker:0", "worker:1", "worker:2", "ps:0", "evaluator:0"})
            QTest::newRow(task) << task;
    }

    void previewForEachTask()
    {
        QFETCH(QString, task);
        ExperimentDocument document;
        ClusterEditing editing(document);
        setCluster(document);
        QString error;
        const QString text = editing.tfConfigPreview(task, &error);
        QVERIFY2(!text.isEmpty(), qPrintable(error));
        QVERIFY(text.contains('\n')); // indented for reading
        const Json config = Json::parse(text.toStdString());
        const Json expected = Json::parse(R"({
            "chief": ["localhost:29500"],
            "worker": ["localhost:29501", "localhost:29502", "gpu1.example:2222"],
            "ps": ["gpu1.example:29500"],
            "evaluator": ["localhost:29503"]})");
        QCOMPARE(config["cluster"], expected);
        QCOMPARE(QString::fromStdString(config["task"]["type"].get<std::string>()) + ":" +
                     QString::number(config["task"]["index"].get<int>()),
                 task);
    }

    void previewOfAClusterWithProblems()
    {
        ExperimentDocument document;
        ClusterEditing editing(document);
        setCluster(document);
        editing.updateAssignment(2, {"worker", "gpu2", 1, 2222});
        QString error;
        QVERIFY(editing.tfConfigPreview("worker:0", &error).isEmpty());
        QVERIFY2(error.contains("cluster.tasks[2].node: no node named \"gpu2\" (did you mean \"gpu1\"?)"), qPrintable(error));
        document.undo();
        QVERIFY(editing.tfConfigPreview("worker:9", &error).isEmpty());
        QVERIFY2(error.contains("no task worker:9"), qPrintable(error));
    }

    void importsATfConfigFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("tf_config.json");
        writeFile(path, R"({"cluster": {"chief": ["host0.example:2222"],
                                        "worker": ["host1.example:2222", "host1.example:2223"]},
                            "task": {"type": "worker", "index": 1}})");
        ExperimentDocument document;
        ClusterEditing editing(document);
        QString error;
        QVERIFY2(editing.importTfConfigFile(path, &error), qPrintable(error));
        QCOMPARE(nodeRows(editing), (QStringList{"host0|host0.example|22||agent||", "host1|host1.example|22||agent||"}));
        QCOMPARE(assignmentRows(editing), (QStringList{"chief|host0|1|2222", "worker|host1|2|2222"}));
        QCOMPARE(editing.tasks(), (QStringList{"chief:0", "worker:0", "worker:1"}));
        QCOMPARE(document.undoLabel(), QString("Import TF_CONFIG"));
        document.undo();
        QVERIFY(!document.json().contains("cluster"));
    }

    void importFailuresSayWhyAndChangeNothing_data()
    {
        QTest::addColumn<QByteArray>("contents"); // empty: no file
        QTest::addColumn<QString>("expected");     // "%1" is the file
        QTest::newRow("missing file") << QByteArray() << "Cannot import TF_CONFIG: %1: cannot open";
        QTest::newRow("malformed JSON") << QByteArray("{\"cluster\": {\n  \"worker\": [\"a:1\",]\n}}")
                                        << "Cannot import TF_CONFIG: %1:2:";
        QTest::newRow("bad TF_CONFIG") << QByteArray(R"({"cluster": {"worker": ["a", "b:99999"]}})")
                                       << "%1 is not a usable TF_CONFIG: 2 problems:\n  cluster.worker[0]: \"a\" has no port";
        QTest::newRow("not an object") << QByteArray("[1]") << "%1 is not a usable TF_CONFIG: a TF_CONFIG is a JSON object";
    }

    void importFailuresSayWhyAndChangeNothing()
    {
        QFETCH(QByteArray, contents);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath("tf_config.json");
        if (!contents.isEmpty())
            writeFile(path, contents);
        ExperimentDocument document;
        ClusterEditing editing(document);
        setCluster(document);
        const Json before = document.json();
        QString error;
        QVERIFY(!editing.importTfConfigFile(path, &error));
        QVERIFY2(error.startsWith(expected.arg(path)), qPrintable(error));
        QCOMPARE(document.json(), before);
        QCOMPARE(document.undoLabel(), QString("test cluster"));
    }

    void malformedJsonNamesLineAndColumn()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("tf_config.json");
        writeFile(path, "{\"cluster\": {\n  \"worker\": [\"a:1\",]\n}}");
        ExperimentDocument document;
        ClusterEditing editing(document);
        QString error;
        QVERIFY(!editing.importTfConfigFile(path, &error));
        QVERIFY2(error.contains(path + ":2:20: invalid JSON"), qPrintable(error));
    }

    void exportThenReimportKeepsTheAddresses()
    {
        QTemporaryDir dir;
        ExperimentDocument document;
        ClusterEditing editing(document);
        setCluster(document);
        const QString path = dir.filePath("worker-1.json");
        QString error;
        QVERIFY2(editing.exportTfConfig(path, "worker:1", &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const Json written = Json::parse(file.readAll().toStdString());
        QCOMPARE(written["task"], Json::parse(R"({"type": "worker", "index": 1})"));

        ExperimentDocument other;
        ClusterEditing imported(other);
        QVERIFY2(imported.importTfConfigFile(path, &error), qPrintable(error));
        QCOMPARE(imported.tasks(), editing.tasks());
        for (const QString& task : editing.tasks()) {
            QString e1, e2;
            QCOMPARE(imported.tfConfigPreview(task, &e1), editing.tfConfigPreview(task, &e2));
        }
        // Exporting over an existing file replaces it; an unwritable place is reported.
        QVERIFY(editing.exportTfConfig(path, "chief:0", &error));
        QVERIFY(!editing.exportTfConfig(dir.filePath("missing/dir/x.json"), "chief:0", &error));
        QVERIFY2(error.startsWith("Cannot write " + dir.filePath("missing/dir/x.json")), qPrintable(error));
        QVERIFY(!editing.exportTfConfig(path, "worker:7", &error));
        QVERIFY2(error.contains("no task worker:7"), qPrintable(error));
    }

    void malformedClusterIsShownAsFarAsItCanBeRead_data()
    {
        QTest::addColumn<QString>("cluster");
        QTest::addColumn<QStringList>("nodes");
        QTest::addColumn<QStringList>("assignments");
        QTest::addColumn<QString>("path"); // where validation reports it
        QTest::addColumn<QString>("words");
        QTest::newRow("not an object") << "42" << QStringList() << QStringList() << "cluster" << "must be an object";
        QTest::newRow("nodes not a list")
            << R"({"nodes": "local", "tasks": [{"type": "worker", "node": "local", "count": "two"}, 5]})" << QStringList()
            << QStringList{"worker|local|1|0", "worker||1|0"} << "cluster.nodes" << "must be a list";
        QTest::newRow("bad fields")
            << R"({"nodes": [{"name": "a", "host": 7, "ssh_port": "x", "auth": "kerberos"}, null],
                   "tasks": [{"type": "master", "node": "a", "port": -5}]})"
            << QStringList{"a||22||kerberos||", "||22||none||"} << QStringList{"master|a|1|-5"}
            << "cluster.tasks[0].type" << "unknown value \"master\"";
        QTest::newRow("tasks not a list") << R"({"nodes": [{"name": "local", "host": "localhost"}], "tasks": {}})"
                                          << QStringList{"local|localhost|22||none||"} << QStringList()
                                          << "cluster.tasks" << "must be a list";
    }

    void malformedClusterIsShownAsFarAsItCanBeRead()
    {
        QFETCH(QString, cluster);
        QFETCH(QStringList, nodes);
        QFETCH(QStringList, assignments);
        QFETCH(QString, path);
        QFETCH(QString, words);
        ExperimentDocument document;
        ClusterEditing editing(document);
        setCluster(document, Json::parse(cluster.toStdString()));
        QCOMPARE(nodeRows(editing), nodes);
        QCOMPARE(assignmentRows(editing), assignments);
        QVERIFY2(hasProblem(document, path, words), qPrintable(problemsText(document)));
        QString error;
        editing.tasks();
        QVERIFY(editing.tfConfigPreview("worker:0", &error).isEmpty());
        QVERIFY(error.contains(path));
        // Editing still works: what is shown plus the change, undone in one step.
        const Json before = document.json();
        editing.addNode({"n", "n.example", 22, {}, "agent", {}, {}});
        QCOMPARE(editing.nodes().size(), nodes.size() + 1);
        editing.updateNode(0, {"m", "m.example", 22, {}, "agent", {}, {}});
        editing.updateAssignment(0, {"worker", "m", 1, 0});
        editing.removeNode(0);
        editing.removeAssignment(0);
        while (document.canUndo() && document.undoLabel() != "test cluster")
            document.undo();
        QCOMPARE(document.json(), before);
    }

    // Choosing a strategy of several processes on the default cluster gives it a job that
    // validates, in the same undo step; back to one process keeps one training task.
    void choosingAStrategyFitsALocalCluster()
    {
        ExperimentDocument document;
        document.newDocument();
        ClusterEditing editing(document);
        const Json before = document.json();
        editing.chooseStrategy("ParameterServer", {});
        QCOMPARE(document.get("/strategy/type").toString(), QString("ParameterServer"));
        QCOMPARE(assignmentRows(editing), QStringList({"chief|local|1|0", "worker|local|2|0", "ps|local|2|0"}));
        QVERIFY2(document.validation().ok(), qPrintable(problemsText(document)));
        QCOMPARE(document.undoLabel(), QString("Change strategy to ParameterServer (and its tasks)"));
        document.undo();
        QCOMPARE(document.json(), before);

        editing.chooseStrategy("MultiWorkerMirrored", {});
        QCOMPARE(assignmentRows(editing), QStringList({"worker|local|2|0"}));
        QVERIFY2(document.validation().ok(), qPrintable(problemsText(document)));
        QCOMPARE(document.validation().workers, 2);
        editing.chooseStrategy("ParameterServer", {});
        QCOMPARE(assignmentRows(editing), QStringList({"chief|local|1|0", "worker|local|2|0", "ps|local|2|0"}));
        // One process: the chief, alone.
        editing.chooseStrategy("Mirrored", {});
        QCOMPARE(assignmentRows(editing), QStringList({"chief|local|1|0"}));
        QVERIFY2(document.validation().ok(), qPrintable(problemsText(document)));
        // A cluster that suits the strategy is kept.
        editing.chooseStrategy("OneDevice", {});
        QCOMPARE(assignmentRows(editing), QStringList({"chief|local|1|0"}));
        QCOMPARE(document.undoLabel(), QString("Change strategy to OneDevice"));
    }

    void aRemoteClusterIsLeftAsItIs()
    {
        ExperimentDocument document;
        document.newDocument();
        ClusterEditing editing(document);
        setCluster(document, Json::parse(R"({"nodes": [{"name": "gpu1", "host": "gpu1.example", "auth": "agent"}],
                                             "tasks": [{"type": "worker", "node": "gpu1"}]})"));
        editing.chooseStrategy("ParameterServer", {});
        QCOMPARE(document.get("/strategy/type").toString(), QString("ParameterServer"));
        QCOMPARE(assignmentRows(editing), QStringList({"worker|gpu1|1|0"}));
        QVERIFY(hasProblem(document, "cluster.tasks", "exactly one chief task"));
        // The one-click setup puts the job on this machine's node, added beside gpu1.
        editing.setUpLocalJob();
        QCOMPARE(nodeRows(editing).size(), 2);
        QVERIFY(nodeRows(editing)[1].startsWith("local|localhost|22||none"));
        QCOMPARE(assignmentRows(editing), QStringList({"chief|local|1|0", "worker|local|2|0", "ps|local|2|0"}));
        QVERIFY2(document.validation().ok(), qPrintable(problemsText(document)));
        QCOMPARE(document.undoLabel(), QString("Set up a chief, 2 workers and 2 ps tasks on this machine"));
    }

    void usesTasksOnlyUnderSeveralProcesses()
    {
        ExperimentDocument document;
        document.newDocument();
        ClusterEditing editing(document);
        QVERIFY(!editing.usesTasks());
        QCOMPARE(editing.singleProcessPlace(), QString("this machine"));
        document.setValue("/strategy", "Mirrored"); // the short form
        QCOMPARE(editing.strategy(), QString("Mirrored"));
        QVERIFY(!editing.usesTasks());
        editing.chooseStrategy("MultiWorkerMirrored", {});
        QVERIFY(editing.usesTasks());
        setCluster(document, Json::parse(R"({"nodes": [{"name": "gpu1", "host": "gpu1.example", "auth": "agent"}],
                                             "tasks": [{"type": "worker", "node": "gpu1"}]})"));
        document.setValue("/strategy/type", "OneDevice");
        QCOMPARE(editing.singleProcessPlace(), QString("node gpu1 (gpu1.example)"));
    }

    void validationNamesClusterFields()
    {
        ExperimentDocument document;
        ClusterEditing editing(document);
        setCluster(document);
        // Several chief and worker tasks and a ps under OneDevice; tasks on a remote node are
        // launched there over SSH (no problem here).
        QVERIFY(hasProblem(document, "cluster.tasks", "OneDevice trains in one process"));
        QVERIFY(hasProblem(document, "cluster.tasks", "OneDevice uses no parameter servers"));
        QVERIFY(!hasProblem(document, "cluster.tasks[2].node", {}));
        QVERIFY(!hasProblem(document, "cluster.tasks[0].node", {}));

        // One worker on the remote node: valid (its node is checked before launch).
        setCluster(document, Json::parse(R"({"nodes": [{"name": "gpu1", "host": "gpu1.example"}],
                                             "tasks": [{"type": "worker", "node": "gpu1"}]})"));
        QVERIFY2(document.validation().ok(), qPrintable(problemsText(document)));
        // On this machine: valid too.
        editing.updateNode(0, {"gpu1", "localhost", 22, {}, "none", {}, {}});
        QVERIFY2(document.validation().ok(), qPrintable(problemsText(document)));
        // A secret in the document.
        setCluster(document, Json::parse(R"({"nodes": [{"name": "local", "host": "localhost", "password": "x"}]})"));
        QVERIFY(hasProblem(document, "cluster.nodes[0].password", "secrets never go in the experiment file"));
    }

    // Switching to Slurm adds cluster.slurm and keeps the nodes and tasks; switching back
    // removes it and they are as they were; each is one undo step.
    void switchingToSlurmAndBack()
    {
        ExperimentDocument document;
        document.newDocument();
        ClusterEditing editing(document);
        editing.chooseStrategy("MultiWorkerMirrored", {});
        const Json before = document.json();
        const QStringList nodes = nodeRows(editing), tasks = assignmentRows(editing);
        QVERIFY(!editing.isSlurmJob());
        editing.setSlurmJob(true);
        QVERIFY(editing.isSlurmJob());
        QCOMPARE(document.undoLabel(), QString("Run the tasks as a Slurm job"));
        QCOMPARE(nodeRows(editing), nodes);
        QCOMPARE(assignmentRows(editing), tasks);
        QCOMPARE(document.value("/cluster/nodes"), before["cluster"]["nodes"]);
        QCOMPARE(document.value("/cluster/tasks"), before["cluster"]["tasks"]);
        // Two workers on this machine: one node running two tasks, every task a worker.
        QCOMPARE(document.value("/cluster/slurm/nodes"), Json(1));
        QCOMPARE(document.value("/cluster/slurm/tasks_per_node"), Json(2));
        QCOMPARE(document.value("/cluster/slurm/login"), Json("local"));
        QVERIFY(!document.value("/cluster/slurm").contains("jobs"));
        QCOMPARE(editing.slurmTasks(), QStringList({"worker:0", "worker:1"}));
        QVERIFY2(document.validation().ok(), qPrintable(problemsText(document)));
        editing.setSlurmJob(true); // already: no step
        QCOMPARE(document.undoLabel(), QString("Run the tasks as a Slurm job"));

        editing.setSlurmNodes(3);
        editing.setSlurmJob(false);
        QVERIFY(!editing.isSlurmJob());
        QCOMPARE(document.undoLabel(), QString("Run the tasks on these machines"));
        QCOMPARE(document.json(), before);
        document.undo();
        QVERIFY(editing.isSlurmJob());
        QCOMPARE(editing.slurmJob().nodes, 3);
        document.undo();
        document.undo();
        QCOMPARE(document.json(), before);
    }

    // The tasks become Slurm tasks: as many nodes as nodes with tasks when each runs as many,
    // else one task per node; jobs by type unless every task is a worker.
    void slurmDefaultsFromTheTasks_data()
    {
        QTest::addColumn<QString>("cluster");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("tasksPerNode");
        QTest::addColumn<QString>("jobs");
        QTest::newRow("uneven, every type") << QString(kCluster) << 6 << 1 << "chief 1, evaluator 1, ps 1, worker 3";
        QTest::newRow("two nodes of two workers")
            << R"({"nodes": [{"name": "a", "host": "a"}, {"name": "b", "host": "b"}],
                   "tasks": [{"type": "worker", "node": "a", "count": 2}, {"type": "worker", "node": "b", "count": 2}]})"
            << 2 << 2 << "";
        QTest::newRow("the default: one worker") << "null" << 1 << 1 << "";
    }

    void slurmDefaultsFromTheTasks()
    {
        QFETCH(QString, cluster);
        QFETCH(int, nodes);
        QFETCH(int, tasksPerNode);
        QFETCH(QString, jobs);
        ExperimentDocument document;
        document.newDocument();
        ClusterEditing editing(document);
        if (cluster != "null")
            setCluster(document, Json::parse(cluster.toStdString()));
        // The strategy these tasks are for (the tasks' count is checked against it).
        if (jobs.contains("ps"))
            document.setValue("/strategy", "ParameterServer");
        else if (nodes * tasksPerNode > 1)
            document.setValue("/strategy", "MultiWorkerMirrored");
        const strata::schema::SlurmSettings s = editing.slurmDefaults();
        QCOMPARE(int(s.nodes), nodes);
        QCOMPARE(int(s.tasksPerNode), tasksPerNode);
        QStringList counts;
        for (const auto& [type, count] : s.jobs)
            counts << QStringLiteral("%1 %2").arg(QString::fromStdString(type)).arg(count);
        QCOMPARE(counts.join(", "), jobs);
        // Before switching, the page shows these defaults.
        QCOMPARE(editing.slurmJob().nodes, nodes);
        editing.setSlurmJob(true);
        QCOMPARE(editing.slurmJob().tasksPerNode, tasksPerNode);
        QVERIFY2(!hasProblem(document, "cluster.slurm.jobs", {}), qPrintable(problemsText(document)));
    }

    // Every field: written where the engine reads it, one undo step, the value read back.
    void eachSlurmFieldIsOneUndoStep()
    {
        ExperimentDocument document;
        document.newDocument();
        ClusterEditing editing(document);
        editing.chooseStrategy("MultiWorkerMirrored", {});
        editing.setSlurmJob(true);
        const Json before = document.json();
        editing.setSlurmLogin("local");                      // as it is: no step
        editing.setSlurmPartition(" gpu ");
        editing.setSlurmNodes(3);
        editing.setSlurmTasksPerNode(4);
        editing.setSlurmCpusPerTask(8);
        editing.setSlurmGpusPerTask(1);
        editing.setSlurmTimeLimit("12:00:00");
        editing.setSlurmAccount("ml-team");
        editing.setSlurmQos("high");
        editing.setSlurmExtraSbatch({"--mem=64G", "  ", " --constraint=a100 "});
        editing.setSlurmRequeue(false);
        editing.setSlurmSignalSeconds(300);
        const Json slurm = document.value("/cluster/slurm");
        QCOMPARE(slurm["partition"], Json("gpu"));
        QCOMPARE(slurm["nodes"], Json(3));
        QCOMPARE(slurm["tasks_per_node"], Json(4));
        QCOMPARE(slurm["cpus_per_task"], Json(8));
        QCOMPARE(slurm["gpus_per_task"], Json(1));
        QCOMPARE(slurm["time_limit"], Json("12:00:00"));
        QCOMPARE(slurm["account"], Json("ml-team"));
        QCOMPARE(slurm["qos"], Json("high"));
        QCOMPARE(slurm["extra_sbatch"], Json::parse(R"(["--mem=64G", "--constraint=a100"])"));
        QCOMPARE(slurm["requeue"], Json(false));
        QCOMPARE(slurm["signal_seconds"], Json(300));
        QVERIFY2(document.validation().ok(), qPrintable(problemsText(document)));
        const SlurmJob job = editing.slurmJob();
        QCOMPARE(job.partition, QString("gpu"));
        QCOMPARE(job.nodes * job.tasksPerNode, 12);
        QCOMPARE(job.extraSbatch, QStringList({"--mem=64G", "--constraint=a100"}));
        QCOMPARE(job.timeLimit, QString("12:00:00"));
        QVERIFY(!job.requeue);
        QCOMPARE(editing.slurmTasks().size(), qsizetype(12));
        QCOMPARE(document.undoLabel(), QString("Warn the Slurm job 300 s before its end"));
        for (int step = 0; step < 11; ++step)
            document.undo();
        QCOMPARE(document.json(), before);
        QCOMPARE(document.undoLabel(), QString("Run the tasks as a Slurm job"));
    }

    // A setter on a cluster that is no Slurm job switches to one in the same step.
    void aSlurmFieldSwitchesToSlurm()
    {
        ExperimentDocument document;
        document.newDocument();
        ClusterEditing editing(document);
        const Json before = document.json();
        editing.setSlurmPartition("gpu");
        QVERIFY(editing.isSlurmJob());
        QCOMPARE(document.value("/cluster/slurm/partition"), Json("gpu"));
        QCOMPARE(document.value("/cluster/slurm/nodes"), Json(1));
        document.undo();
        QCOMPARE(document.json(), before);
    }

    // Numbers out of range and options that are none are shown as written, for validation to name.
    void slurmFieldsAsWritten()
    {
        ExperimentDocument document;
        document.newDocument();
        ClusterEditing editing(document);
        editing.setSlurmJob(true);
        editing.setSlurmNodes(0);
        editing.setSlurmExtraSbatch({"mem=16G"});
        editing.setSlurmTimeLimit("soon");
        const SlurmJob job = editing.slurmJob();
        QCOMPARE(job.nodes, 0);
        QCOMPARE(job.extraSbatch, QStringList{"mem=16G"});
        QCOMPARE(job.timeLimit, QString("soon"));
        QVERIFY(hasProblem(document, "cluster.slurm.nodes", "must be between 1 and"));
        QVERIFY(hasProblem(document, "cluster.slurm.extra_sbatch[0]", "must be an sbatch option"));
        QVERIFY(hasProblem(document, "cluster.slurm.time_limit", "is not one of Slurm's time formats"));
    }

    // Counts by type: the first starts from the workers that no jobs stand for; the jobs must
    // add up to nodes x tasks per node; back to workers only, the jobs are removed.
    void slurmJobCounts()
    {
        ExperimentDocument document;
        document.newDocument();
        ClusterEditing editing(document);
        editing.chooseStrategy("ParameterServer", {});
        setCluster(document, Json::parse(R"({"nodes": [{"name": "local", "host": "localhost"}],
                                             "tasks": [{"type": "worker", "node": "local", "count": 4}]})"));
        editing.setSlurmJob(true);
        QCOMPARE(editing.slurmTasks(), QStringList({"worker:0", "worker:1", "worker:2", "worker:3"}));
        editing.setSlurmJobCount("chief", 1);
        QCOMPARE(document.value("/cluster/slurm/jobs"), Json::parse(R"({"chief": 1, "worker": 4})"));
        QCOMPARE(document.undoLabel(), QString("Set the Slurm job's chief tasks to 1"));
        QVERIFY(hasProblem(document, "cluster.slurm.jobs", "asks for 5 tasks but nodes x tasks_per_node is 1 x 4 = 4"));
        editing.setSlurmJobCount("worker", 2);
        editing.setSlurmJobCount("ps", 1);
        QVERIFY(!hasProblem(document, "cluster.slurm.jobs", {}));
        QCOMPARE(editing.slurmJob().jobs, (QMap<QString, int>{{"chief", 1}, {"worker", 2}, {"ps", 1}}));
        QCOMPARE(editing.slurmTasks(), QStringList({"chief:0", "worker:0", "worker:1", "ps:0"}));
        editing.setSlurmJobCount("ps", 0);
        editing.setSlurmJobCount("chief", 0);
        editing.setSlurmJobCount("worker", 4);
        QVERIFY(!document.value("/cluster/slurm").contains("jobs"));
        QCOMPARE(editing.slurmTasks().size(), qsizetype(4));
    }

    // The page's preview is the script the launcher submits, with placeholders for what only a
    // launch knows.
    void jobScriptPreview()
    {
        ExperimentDocument document;
        document.newDocument();
        ClusterEditing editing(document);
        editing.setSlurmJob(true);
        editing.setSlurmNodes(3);
        editing.setSlurmPartition("gpu");
        editing.setSlurmExtraSbatch({"--mem=64G"});
        const QString script = strata::app::jobScriptPreview(editing.slurmSettings(), "/opt/strata/bin/strata-engine");
        for (const char* line : {"#SBATCH --nodes=3", "#SBATCH --partition=gpu", "#SBATCH --mem=64G",
                                 "#SBATCH --output=<run directory>/slurm-%j.out", "--launch '<launch id>'",
                                 "engine=/opt/strata/bin/strata-engine"})
            QVERIFY2(script.contains(line), qPrintable(script));
    }

    // kCluster's tasks: chief and two workers share local's GPUs, worker:2 is alone on gpu1, the
    // ps and evaluator take none.
    void eachTasksGpusInWords()
    {
        strata::schema::Problems problems;
        const Json json = Json::parse(kCluster);
        strata::schema::ClusterSpec cluster = strata::schema::readCluster(&json, "cluster", problems);
        QVERIFY(problems.empty());
        const auto says = [&](const QString& task, const QMap<QString, int>& gpus) {
            return taskGpusText(cluster, "ParameterServer", task, gpus);
        };
        // Before Check nodes: how the node's GPUs are shared.
        QCOMPARE(says("chief:0", {}), QString("its share of the node's GPUs (1 of 3 tasks)"));
        QCOMPARE(says("worker:2", {}), QString()); // alone on gpu1: the whole node
        QCOMPARE(says("ps:0", {}), QString());
        QCOMPARE(says("evaluator:0", {}), QString());
        // After: which of them.
        const QMap<QString, int> checked{{"local", 8}, {"gpu1", 2}};
        QCOMPARE(says("chief:0", checked), QString("GPUs 0,1 (of 8)"));
        QCOMPARE(says("worker:1", checked), QString("GPUs 4,5 (of 8)"));
        QCOMPARE(says("worker:1", {{"local", 3}}), QString("GPU 2 (of 3)"));
        QCOMPARE(says("worker:0", {{"local", 0}}), QString("no GPU on its node"));
        // gpus_per_task: the lone task too.
        cluster.gpusPerTask = 1;
        QCOMPARE(says("worker:2", {}), QString("1 of the node's GPUs (gpus_per_task)"));
        QCOMPARE(says("worker:2", checked), QString("GPU 0 (of 2)"));
        QCOMPARE(says("worker:1", checked), QString("GPU 2 (of 8)"));
        cluster.gpusPerTask = 3;
        QCOMPARE(says("worker:0", {}), QString("3 of the node's GPUs (gpus_per_task)"));
        QCOMPARE(says("worker:0", {{"local", 8}}), QString("3 GPUs each for 3 tasks: the node has 8"));
        // A strategy of one process uses the whole node.
        QCOMPARE(taskGpusText(cluster, "Mirrored", "worker:0", checked), QString());
        QCOMPARE(gpuCount({"cpu:0", "gpu:0", "gpu:1"}), 2);
    }
};

QTEST_GUILESS_MAIN(TestClusterEditing)
#include "tst_cluster_editing.moc"
