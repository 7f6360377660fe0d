// Runs submitted to a real Slurm (slurm_fixture.h: munged, slurmctld and three slurmd on this
// machine) through the launcher's Slurm backend, followed as a user sees them: a
// MultiWorkerMirrored job over three nodes completes with the weights of the same job on one
// machine; a ParameterServer job over the nodes completes; a job held pending by a full
// partition shows Slurm's reason, then runs; Stop checkpoints every task and leaves no job
// and no process; a preemption signal (scancel --signal=USR2 -b) checkpoints, requeues and
// resumes the job, which ends with the weights of an uninterrupted run; a node lost mid-job
// ends the job naming the task and the node; a job submitted from a login node over SSH (this
// machine's sshd, its own run directory) is followed, preempted and resumed as one submitted
// here, its files copied here, and a login node whose host key is not trusted is refused before
// anything is submitted. Root only (slurmd runs jobs as their users).

#include "app_test_util.h"
#include "slurm_fixture.h"
#include "ssh_fixture.h"

#include "app/history/run_history.h"
#include "app/launch/headless_run.h"
#include "app/launch/job_launcher.h"
#include "app/metrics/placement.h"

#include <QFile>
#include <QSignalSpy>
#include <QtTest>


using namespace strata::app;
using namespace apptest;

namespace {

const QString kEngine = QStringLiteral(STRATA_ENGINE_PATH);
constexpr int kRunTimeoutMs = 120000;

// `experiment` as a Slurm job: `nodes` x `perNode` tasks (named by `jobs` when given) from
// port `portBase` on each node.
Json onSlurm(Json experiment, int nodes, int perNode, int portBase, bool requeue = true, Json jobs = nullptr)
{
    Json slurm{{"partition", "debug"}, {"nodes", nodes}, {"tasks_per_node", perNode}, {"port_base", portBase},
               {"requeue", requeue}, {"signal_seconds", 30}};
    if (!jobs.is_null())
        slurm["jobs"] = jobs;
    experiment["cluster"] = {{"slurm", slurm}};
    return experiment;
}

Json multiWorkerStrategy()
{
    return {{"type", "MultiWorkerMirrored"}, {"timeout_seconds", 20}};
}

// About ten seconds of MultiWorkerMirrored training (200 epochs of 19 steps): a signal sent
// once it has begun comes long before its end.
Json tenSecondsOfTraining()
{
    Json experiment = tinyExperiment(200);
    experiment["strategy"] = multiWorkerStrategy();
    experiment["data"]["validation"] = "none";
    return experiment;
}

const TaskSummary* summaryOf(const QList<TaskSummary>& tasks, const QString& name)
{
    for (const TaskSummary& t : tasks)
        if (t.task == name)
            return &t;
    return nullptr;
}

// The steps `task`'s engine has recorded in its run directory: a signal meant to land mid-run is
// timed on the engine's own progress, which the app's (ingested, on a loaded machine seconds
// later) lags.
int64_t stepsRecorded(const QString& runDir, const QString& task)
{
    QFile records(QDir(runDir).filePath("steps-" + QString(task).replace(':', '-') + ".jsonl"));
    return records.open(QIODevice::ReadOnly) ? records.readAll().count('\n') : 0;
}

// Empty when the copy here equals the node's file byte for byte; else where they part (sizes,
// the first line that differs on each side).
QString copyDifference(const QString& copy, const QString& original)
{
    const QByteArray a = sshtest::readAll(copy), b = sshtest::readAll(original);
    if (a == b)
        return {};
    qsizetype at = 0;
    while (at < a.size() && at < b.size() && a[at] == b[at])
        ++at;
    const auto lineAt = [at](const QByteArray& text) {
        const qsizetype begin = text.lastIndexOf('\n', at - 1) + 1;
        const qsizetype end = text.indexOf('\n', at);
        return QString::fromUtf8(text.mid(begin, (end < 0 ? text.size() : end) - begin).left(300));
    };
    return QStringLiteral("%1: %2 bytes here, %3 on the node, first different at byte %4 (line %5)\nhere: %6\nnode: %7")
        .arg(QFileInfo(copy).fileName())
        .arg(a.size())
        .arg(b.size())
        .arg(at)
        .arg(a.left(at).count('\n') + 1)
        .arg(lineAt(a), lineAt(b));
}

int64_t stepOfTask(const MetricsStore& store, const QString& task)
{
    int64_t step = 0;
    withTask(store, [&](const TaskData& td) { step = td.step; }, task);
    return step;
}

uint64_t weightsCrc(const MetricsStore& store, const QString& task)
{
    uint64_t crc = 0;
    withTask(store, [&](const TaskData& td) {
        if (td.done.is_object() && td.done.contains("weights_crc32"))
            crc = td.done["weights_crc32"].get<uint64_t>();
    }, task);
    return crc;
}

// Waits (events, not a fixed time) until `done` holds.
template<typename Done>
bool waitUntil(Done done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QTest::qWait(50);
    }
    return true;
}

} // namespace

class TestSlurmLaunch : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_runs = 0;
    std::unique_ptr<slurmtest::SlurmCluster> m_cluster;
    std::unique_ptr<slurmtest::NodeNames> m_names;

    QString newRunDir() { return m_dir.filePath(QStringLiteral("run-%1").arg(++m_runs)); }

    // Runs `experiment` with a launcher of its own to its end; the store holds it.
    void runToEnd(const Json& experiment, MetricsStore& store, QString* runDir = nullptr)
    {
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        const QString dir = newRunDir();
        if (runDir)
            *runDir = dir;
        QVERIFY2(launcher.start(experiment, kEngine, dir, &error), qPrintable(error));
        QVERIFY2(finished.wait(kRunTimeoutMs), qPrintable(logText(store)));
    }

    // Starts `experiment` and waits until `task` has trained past `step`.
    void startTraining(JobLauncher& launcher, MetricsStore& store, const Json& experiment, const QString& runDir,
                       const QString& task, int64_t step = 5)
    {
        QString error;
        QVERIFY2(launcher.start(experiment, kEngine, runDir, &error), qPrintable(error));
        QVERIFY2(waitUntil([&] { return stepOfTask(store, task) > step; }, 60000), qPrintable(logText(store)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // The run directories stand for the cluster's shared filesystem: Slurm's tasks run as root here.
        if (const QString why = slurmtest::SlurmCluster::skipReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        slurmtest::SlurmClusterOptions options;
        options.messageTimeoutS = 5; // a lost node is down within 15 s
        m_cluster = std::make_unique<slurmtest::SlurmCluster>(options);
        QVERIFY2(m_cluster->isReady(), qPrintable(m_cluster->error()));
        QVERIFY(m_cluster->waitForNodesIdle());
        m_names = std::make_unique<slurmtest::NodeNames>(*m_cluster);
        // The launcher's Slurm commands find this cluster as a login node's would.
        qputenv("SLURM_CONF", m_cluster->confPath().toUtf8());
    }

    // A test that failed half-way leaves no job behind to hold the next one's nodes.
    void cleanup()
    {
        if (m_cluster)
            QVERIFY(m_cluster->cancelAll());
    }

    void cleanupTestCase()
    {
        m_names.reset();
        m_cluster.reset();
    }

    void multiWorkerMirroredOverThreeNodes()
    {
        Json experiment = tinyExperiment(2);
        experiment["strategy"] = multiWorkerStrategy();
        MetricsStore store;
        QString runDir;
        runToEnd(onSlurm(experiment, 3, 1, testing::freePorts(1)), store, &runDir);
        const QList<TaskSummary> tasks = taskSummaries(store);
        QCOMPARE(tasks.size(), 3);
        QStringList hosts;
        for (const TaskSummary& t : tasks) {
            QVERIFY2(t.state == TaskState::Completed, qPrintable(t.task + ": " + t.error + "\n" + logText(store)));
            QVERIFY2(t.place.contains("Slurm job"), qPrintable(t.place));
        }
        QVERIFY2(logText(store).contains("Submitted Slurm job"), qPrintable(logText(store)));
        QVERIFY(QFileInfo(QDir(runDir).filePath("slurm-job.sh")).exists());
        QCOMPARE(QFileInfo(QDir(runDir).filePath("job-token")).permissions() & (QFile::ReadGroup | QFile::ReadOther),
                 QFile::Permissions{});
        // The same job on one machine ends with the same weights.
        MetricsStore local;
        runToEnd(multiWorker(experiment, 3), local);
        QVERIFY(weightsCrc(store, "worker:0") != 0);
        QCOMPARE(weightsCrc(store, "worker:0"), weightsCrc(local, "worker:0"));
        QCOMPARE(weightsCrc(store, "worker:2"), weightsCrc(store, "worker:0"));
    }

    void pendingThenRunningThenStopped()
    {
        // Every CPU of the partition taken by another job.
        const QString blocker = m_cluster->submit({"-N3", "-n6", "--wrap", "sleep 600"});
        QVERIFY(!blocker.isEmpty());
        QVERIFY(m_cluster->waitForJobState(blocker, "RUNNING", 30000));
        Json experiment = endlessExperiment();
        experiment["strategy"] = multiWorkerStrategy();
        experiment["training"]["checkpoint"] = {{"every_steps", 1000000}}; // only the stop's
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        const QString runDir = newRunDir();
        QVERIFY2(launcher.start(onSlurm(experiment, 2, 1, testing::freePorts(1)), kEngine, runDir, &error),
                 qPrintable(error));
        // Pending, with Slurm's reason, in the task table and the log.
        QVERIFY2(waitUntil([&] {
            const TaskSummary* t = summaryOf(taskSummaries(store), "worker:0");
            return t && stateText(*t) == QLatin1String("pending (Resources)");
        }, 30000), qPrintable(logText(store)));
        QVERIFY2(logText(store).contains("PENDING (Resources)"), qPrintable(logText(store)));
        // Running once the partition has room: both tasks training, placed on their nodes.
        QVERIFY(m_cluster->run("scancel", {blocker}).ok());
        QVERIFY2(waitUntil([&] {
            const QList<TaskSummary> tasks = taskSummaries(store);
            return tasks.size() == 2 && std::all_of(tasks.begin(), tasks.end(), [](const TaskSummary& t) {
                return t.state == TaskState::Running && t.step > 0;
            });
        }, 60000), qPrintable(logText(store)));
        // The job's state as Slurm says it, at its next poll.
        QVERIFY2(waitUntil([&] { return logText(store).contains("RUNNING"); }, 10000), qPrintable(logText(store)));
        for (const TaskSummary& t : taskSummaries(store))
            QVERIFY2(t.place.startsWith("Slurm job"), qPrintable(t.place));
        const QString job = QString::fromStdString(Json::parse(readJsonText(QDir(runDir).filePath("slurm-job.json")))["job_id"].get<std::string>());

        // Stop: every task stopped, a checkpoint written, the job gone from Slurm's running
        // jobs, nothing of it left running.
        launcher.stop();
        QVERIFY2(finished.wait(kRunTimeoutMs), qPrintable(logText(store)));
        for (const TaskSummary& t : taskSummaries(store))
            QVERIFY2(t.state == TaskState::Stopped, qPrintable(t.task + ": " + stateText(t) + " " + t.error));
        QVERIFY(!QDir(QDir(runDir).filePath("checkpoints")).entryList({"ckpt-*"}).isEmpty());
        QVERIFY2(m_cluster->waitForJobState(job, "COMPLETED|CANCELLED", 30000), qPrintable(m_cluster->jobState(job)));
        QVERIFY(waitUntil([&] { return slurmtest::detail::processesUsing(runDir).isEmpty(); }, 15000));
    }

    void parameterServerOverTheNodes()
    {
        Json experiment = tinyExperiment(2);
        experiment["strategy"] = {{"type", "ParameterServer"}, {"timeout_seconds", 20}};
        MetricsStore store;
        runToEnd(onSlurm(experiment, 2, 2, testing::freePorts(1), true, Json{{"chief", 1}, {"worker", 2}, {"ps", 1}}), store);
        QStringList names;
        for (const TaskSummary& t : taskSummaries(store)) {
            names << t.task;
            QVERIFY2(t.state == TaskState::Completed, qPrintable(t.task + ": " + stateText(t) + " " + t.error + "\n" + logText(store)));
        }
        names.sort();
        QCOMPARE(names, (QStringList{"chief:0", "ps:0", "worker:0", "worker:1"}));
    }

    void evaluatorOnAnotherNode()
    {
        // Jobs in name order: the evaluator is rank 0, on n1; the workers on n2 and n3. The
        // run directory is shared, so it reads worker:0's checkpoints from there.
        Json experiment = tinyExperiment(2);
        experiment["strategy"] = multiWorkerStrategy();
        MetricsStore store;
        runToEnd(onSlurm(experiment, 3, 1, testing::freePorts(1), true, Json{{"worker", 2}, {"evaluator", 1}}), store);
        const QList<TaskSummary> tasks = taskSummaries(store);
        QCOMPARE(tasks.size(), 3);
        for (const TaskSummary& t : tasks)
            QVERIFY2(t.state == TaskState::Completed, qPrintable(t.task + ": " + stateText(t) + " " + t.error + "\n" + logText(store)));
        QVERIFY2(summaryOf(tasks, "evaluator:0")->place.contains("n1"), qPrintable(summaryOf(tasks, "evaluator:0")->place));
        QVERIFY2(summaryOf(tasks, "worker:0")->place.contains("n2"), qPrintable(summaryOf(tasks, "worker:0")->place));
        int evaluations = 0;
        withTask(store, [&](const TaskData& td) { evaluations = td.evaluations; }, "evaluator:0");
        QVERIFY2(evaluations >= 1, qPrintable(logText(store)));
    }

    void followedAgainAfterTheAppClosed()
    {
        Json experiment = tinyExperiment(100);
        experiment["strategy"] = multiWorkerStrategy();
        experiment["data"]["validation"] = "none";
        const QString runDir = newRunDir();
        QString job;
        {
            MetricsStore store;
            JobLauncher launcher(&store);
            QString error;
            QVERIFY2(launcher.start(onSlurm(experiment, 2, 1, testing::freePorts(1)), kEngine, runDir, &error), qPrintable(error));
            QVERIFY2(waitUntil([&] { return stepOfTask(store, "worker:1") > 10; }, 60000), qPrintable(logText(store)));
            job = QString::fromStdString(Json::parse(readJsonText(QDir(runDir).filePath("slurm-job.json")))["job_id"].get<std::string>());
        } // the app closes: the job is Slurm's
        QCOMPARE(m_cluster->jobState(job), QString("RUNNING"));
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.attach(runDir, kEngine, &error), qPrintable(error));
        QVERIFY2(finished.wait(kRunTimeoutMs), qPrintable(logText(store)));
        for (const TaskSummary& t : taskSummaries(store))
            QVERIFY2(t.state == TaskState::Completed, qPrintable(t.task + ": " + stateText(t) + " " + t.error + "\n" + logText(store)));
        // Every step is there once: 600 examples in global batches of 32, 19 steps an epoch.
        withTask(store, [](const TaskData& td) { QCOMPARE(td.done["steps"].get<int64_t>(), int64_t(1900)); }, "worker:0");
        QCOMPARE(weightsCrc(store, "worker:1"), weightsCrc(store, "worker:0"));
    }

    void killTaskEndsOneRank()
    {
        Json experiment = endlessExperiment();
        experiment["strategy"] = multiWorkerStrategy();
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        startTraining(launcher, store, onSlurm(experiment, 2, 1, testing::freePorts(1)), newRunDir(), "worker:1");
        if (QTest::currentTestFailed())
            return;
        launcher.killTask("worker:1");
        QVERIFY2(finished.wait(kRunTimeoutMs), qPrintable(logText(store)));
        const QList<TaskSummary> tasks = taskSummaries(store);
        const TaskSummary* killed = summaryOf(tasks, "worker:1");
        QVERIFY(killed && killed->lost);
        QVERIFY2(killed->lostReason.contains("killed by signal 9"), qPrintable(killed->lostReason));
        const TaskSummary* survivor = summaryOf(tasks, "worker:0");
        QCOMPARE(survivor->state, TaskState::Failed);
        QVERIFY2(survivor->error.contains("lost worker:1"), qPrintable(survivor->error));
    }

    void strataRunInATerminal()
    {
        // `strata run EXPERIMENT` on the login node: the same job, no window.
        Json experiment = tinyExperiment(1);
        experiment["strategy"] = multiWorkerStrategy();
        const QString file = writeFile(m_dir.filePath("slurm.strata.json"),
                                       QByteArray::fromStdString(onSlurm(experiment, 2, 1, testing::freePorts(1)).dump(2)));
        qputenv("STRATA_HISTORY", m_dir.filePath("history.sqlite").toUtf8());
        const QString runDir = newRunDir();
        QCOMPARE(runHeadless({file, runDir, kEngine}), 0);
        QVERIFY(QFileInfo::exists(QDir(runDir).filePath("slurm-job.json")));
        // The history names the job.
        RunHistory history;
        QString error;
        QVERIFY2(history.open(m_dir.filePath("history.sqlite"), &error), qPrintable(error));
        std::vector<RunRecord> runs;
        QVERIFY2(history.query({}, &runs, &error), qPrintable(error));
        QCOMPARE(int(runs.size()), 1);
        const QString job = QString::fromStdString(Json::parse(readJsonText(QDir(runDir).filePath("slurm-job.json")))["job_id"].get<std::string>());
        QCOMPARE(runs[0].batchJob, "Slurm job " + job);
        QCOMPARE(runs[0].status, RunStatus::Completed);
        const Json ends = Json::parse(readJsonText(QDir(runDir).filePath("tasks.json")));
        QCOMPARE(int(ends["tasks"].size()), 2);
        for (const Json& end : ends["tasks"])
            QCOMPARE(end.value("exit_code", -1), 0);
    }

    void preemptionRequeuesAndResumes()
    {
        const Json experiment = tenSecondsOfTraining();
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        const QString runDir = newRunDir();
        QVERIFY2(launcher.start(onSlurm(experiment, 2, 1, testing::freePorts(1)), kEngine, runDir, &error), qPrintable(error));
        QVERIFY2(waitUntil([&] { return stepsRecorded(runDir, "worker:1") > 50; }, 60000), qPrintable(logText(store)));
        const QString job = QString::fromStdString(Json::parse(readJsonText(QDir(runDir).filePath("slurm-job.json")))["job_id"].get<std::string>());
        // What a preemption or the time limit's warning sends.
        const slurmtest::RunResult signalled = m_cluster->run("scancel", {"--signal=USR2", "-b", job});
        QVERIFY2(signalled.ok(), qPrintable(signalled.describe() + "\n" + m_cluster->jobState(job) + "\n" + logText(store)));
        QVERIFY2(finished.wait(kRunTimeoutMs), qPrintable(logText(store)));
        const QString log = logText(store) + "\n" + QString::fromStdString(readJsonText(QDir(runDir).filePath("slurm-events.txt"))) +
                            QString::fromStdString(readJsonText(QDir(runDir).filePath("slurm-" + job + ".out"))) +
                            QDir(runDir).entryList().join(' ') + QString::fromStdString(readJsonText(QDir(runDir).filePath("slurm-job.sh")));
        if (!log.contains("warned job"))
            qWarning("%s", qPrintable(log.right(3000)));
        QVERIFY2(log.contains("warned job"), qPrintable(log));
        QVERIFY2(log.contains("requeued (restart 1)"), qPrintable(log));
        QVERIFY2(log.contains("runs again (restart 1)"), qPrintable(log));
        for (const TaskSummary& t : taskSummaries(store))
            QVERIFY2(t.state == TaskState::Completed, qPrintable(t.task + ": " + stateText(t) + " " + t.error + "\n" + log));
        QCOMPARE(m_cluster->jobInfo(job).value("Restarts"), QString("1"));
        // Resumed exactly: the weights of the same job never interrupted.
        MetricsStore uninterrupted;
        runToEnd(multiWorker(experiment, 2), uninterrupted);
        QVERIFY(weightsCrc(store, "worker:0") != 0);
        QCOMPARE(weightsCrc(store, "worker:0"), weightsCrc(uninterrupted, "worker:0"));
    }

    void warnedWithoutRequeueEndsStoppedAndResumable()
    {
        // The time limit's warning (the same signal) to a job that may not requeue.
        const Json experiment = tenSecondsOfTraining();
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        const QString runDir = newRunDir();
        startTraining(launcher, store, onSlurm(experiment, 2, 1, testing::freePorts(1), false), runDir, "worker:1", 50);
        if (QTest::currentTestFailed())
            return;
        const QString job = QString::fromStdString(Json::parse(readJsonText(QDir(runDir).filePath("slurm-job.json")))["job_id"].get<std::string>());
        QVERIFY(m_cluster->run("scancel", {"--signal=USR2", "-b", job}).ok());
        QVERIFY2(finished.wait(kRunTimeoutMs), qPrintable(logText(store)));
        for (const TaskSummary& t : taskSummaries(store))
            QVERIFY2(t.state == TaskState::Stopped, qPrintable(t.task + ": " + stateText(t) + " " + t.error));
        QVERIFY(!QDir(QDir(runDir).filePath("checkpoints")).entryList({"ckpt-*"}).isEmpty());
        QVERIFY2(m_cluster->waitForJobState(job, "COMPLETED", 30000), qPrintable(m_cluster->jobState(job)));
        QCOMPARE(m_cluster->jobInfo(job).value("Restarts"), QString("0"));
        QVERIFY(!logText(store).contains("requeued"));
        // Launched again, it resumes from that checkpoint and completes.
        MetricsStore again;
        JobLauncher relaunch(&again);
        QSignalSpy done(&relaunch, &JobLauncher::finished);
        QString error;
        QVERIFY2(relaunch.start(onSlurm(experiment, 2, 1, testing::freePorts(1), false), kEngine, runDir, &error), qPrintable(error));
        QVERIFY2(done.wait(kRunTimeoutMs), qPrintable(logText(again)));
        withTask(again, [](const TaskData& td) {
            QVERIFY2(td.state == TaskState::Completed, qPrintable(td.error));
            QCOMPARE(td.done["steps"].get<int64_t>(), int64_t(3800));
        }, "worker:0");
        QVERIFY2(logText(again).contains("resumed from checkpoint at step"), qPrintable(logText(again)));
    }

    // `experiment` on Slurm, submitted from the login node `server` (known hosts `knownHosts`)
    // with its run directories under `workDir`.
    static Json fromLogin(Json experiment, const sshtest::SshServer& server, const QString& workDir)
    {
        experiment["cluster"]["slurm"]["login"] = "login";
        experiment["cluster"]["nodes"] = Json::array({{{"name", "login"},
                                                       {"host", server.address().toStdString()},
                                                       {"ssh_port", server.port()},
                                                       {"auth", "key"},
                                                       {"key_file", server.clientKey().toStdString()},
                                                       {"engine", kEngine.toStdString()},
                                                       {"work_dir", workDir.toStdString()}}});
        return experiment;
    }

    void fromALoginNodeOverSsh()
    {
        // The login node: this machine's sshd, whose sessions find Slurm's configuration as a
        // real login node's find /etc/slurm; the run directory there is not the one here.
        sshtest::SshServer server({.environment = {"SLURM_CONF=" + m_cluster->confPath()}});
        QVERIFY2(server.isRunning(), qPrintable(server.error()));
        const QString knownHosts = writeFile(m_dir.filePath("known_hosts"), server.knownHostsLine());
        const QString workDir = m_dir.filePath("login-work");
        const Json experiment = tenSecondsOfTraining();
        MetricsStore store;
        JobLauncher launcher(&store);
        launcher.setRemoteAccess({{knownHosts}, nullptr});
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        const QString runDir = newRunDir();
        QString error;
        QVERIFY2(launcher.start(fromLogin(onSlurm(experiment, 2, 1, testing::freePorts(1)), server, workDir), kEngine, runDir, &error),
                 qPrintable(error));
        const QString loginRunDir = QDir(workDir).filePath(QFileInfo(runDir).fileName());
        QVERIFY2(waitUntil([&] { return stepsRecorded(loginRunDir, "worker:1") > 50; }, 60000), qPrintable(logText(store)));
        QVERIFY(QFileInfo::exists(QDir(loginRunDir).filePath("slurm-job.sh")));
        QVERIFY(!QFileInfo::exists(QDir(runDir).filePath("job-token")));
        const QString job = QString::fromStdString(Json::parse(readJsonText(QDir(runDir).filePath("slurm-job.json")))["job_id"].get<std::string>());
        QVERIFY2(logText(store).contains("Submitted Slurm job " + job + " from login"), qPrintable(logText(store)));
        // Preempted: the exits arrive over SSH before the job's events are read there.
        QVERIFY(m_cluster->run("scancel", {"--signal=USR2", "-b", job}).ok());
        QVERIFY2(finished.wait(kRunTimeoutMs), qPrintable(logText(store)));
        QVERIFY2(logText(store).contains("requeued (restart 1)"), qPrintable(logText(store)));
        for (const TaskSummary& t : taskSummaries(store))
            QVERIFY2(t.state == TaskState::Completed, qPrintable(t.task + ": " + stateText(t) + " " + t.error + "\n" + logText(store)));
        // Its files copied here, byte for byte, for history and comparison.
        for (const char* file : {"events-worker-0.jsonl", "events-worker-1.jsonl", "steps-worker-1.jsonl"}) {
            const QString difference = copyDifference(QDir(runDir).filePath(file), QDir(loginRunDir).filePath(file));
            QVERIFY2(difference.isEmpty(), qPrintable(difference));
        }
        MetricsStore uninterrupted;
        runToEnd(multiWorker(experiment, 2), uninterrupted);
        QVERIFY(weightsCrc(store, "worker:0") != 0);
        QCOMPARE(weightsCrc(store, "worker:0"), weightsCrc(uninterrupted, "worker:0"));

        // A login node whose host key is not the one trusted: nothing is submitted.
        QVERIFY(server.regenerateHostKey());
        MetricsStore refusedStore;
        JobLauncher refused(&refusedStore);
        refused.setRemoteAccess({{knownHosts}, nullptr});
        QSignalSpy failed(&refused, &JobLauncher::launchFailed);
        QVERIFY2(refused.start(fromLogin(onSlurm(experiment, 2, 1, testing::freePorts(1)), server, workDir), kEngine, newRunDir(), &error),
                 qPrintable(error));
        QVERIFY(failed.wait(30000));
        const QString why = failed.first().first().toString();
        QVERIFY2(why.contains("login node login cannot be reached") && why.contains("host key"), qPrintable(why));
    }

    void lostNodeEndsTheJobNamingTaskAndNode()
    {
        Json experiment = endlessExperiment();
        experiment["strategy"] = multiWorkerStrategy();
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        startTraining(launcher, store, onSlurm(experiment, 3, 1, testing::freePorts(1), false), newRunDir(), "worker:2");
        if (QTest::currentTestFailed())
            return;
        QVERIFY(m_cluster->killNode(1)); // n2, running worker:1
        QVERIFY2(finished.wait(kRunTimeoutMs), qPrintable(logText(store)));
        const QList<TaskSummary> tasks = taskSummaries(store);
        const TaskSummary* lost = summaryOf(tasks, "worker:1");
        QVERIFY(lost);
        QVERIFY2(lost->lost || lost->state == TaskState::Failed, qPrintable(stateText(*lost)));
        // The survivors name the rank they lost; its own end names the node Slurm lost.
        QVERIFY2(lost->error.contains("Slurm lost node n2, where worker:1 ran"), qPrintable(lost->error));
        const TaskSummary* survivor = summaryOf(tasks, "worker:0");
        QVERIFY(survivor);
        QCOMPARE(survivor->state, TaskState::Failed);
        QVERIFY2(survivor->error.contains("lost worker:1"), qPrintable(survivor->error));
        QVERIFY(m_cluster->startNode(1));
        QVERIFY(m_cluster->waitForNodesIdle(60000));
    }
};

QTEST_GUILESS_MAIN(TestSlurmLaunch)
#include "tst_slurm_launch.moc"
