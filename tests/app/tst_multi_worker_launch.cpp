// MultiWorkerMirrored through the launcher: a real 2-worker job of the build's engine (two
// replicas each) completes, with both workers' replicas, throughput and placement in the
// store; a worker killed mid-run ends the job within seconds, the survivor's error naming it
// and the killed worker shown as lost, nothing left running; a real worker stopped with
// SIGSTOP is named lost by the survivor and ended by the launcher. Stand-in engines (shell
// scripts) play the evaluator task: started only under MultiWorkerMirrored, with the token,
// given time to evaluate the final weights after a clean end, stopped (then killed) when
// training ends without it; and a hung worker named lost is ended. A ParameterServer job of
// stand-ins: every task started with the token, its ports made explicit, the ps task wound
// down after the coordinator ended.

#include "../event_deadline.h"
#include "app_test_util.h"

#include "app/experiment/catalogs.h"
#include "app/experiment/validation.h"
#include "app/launch/job_launcher.h"
#include "app/metrics/lost_tasks.h"
#include "app/metrics/placement.h"
#include "app/metrics/run_outcome.h"
#include "app/metrics/store_lines.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

#include <csignal>
#include <cerrno>

using namespace strata::app;
using namespace apptest;

namespace {

const QString kEngine = QStringLiteral(STRATA_ENGINE_PATH);
constexpr int kRunTimeoutMs = testing::kEventDeadlineMs;

int64_t stepOfTask(const MetricsStore& store, const QString& task)
{
    int64_t step = 0;
    withTask(store, [&](const TaskData& td) { step = td.step; }, task);
    return step;
}

// The pids the tasks reported in their `hello`.
QList<qint64> reportedPids(const MetricsStore& store)
{
    QList<qint64> pids;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        for (const TaskData& t : tasks)
            if (t.hello.is_object() && t.hello.contains("pid"))
                pids << t.hello["pid"].get<qint64>();
    });
    return pids;
}

bool processExists(qint64 pid) { return ::kill(pid_t(pid), 0) == 0 || errno != ESRCH; }

const TaskSummary* summaryOf(const QList<TaskSummary>& tasks, const QString& name)
{
    for (const TaskSummary& t : tasks)
        if (t.task == name)
            return &t;
    return nullptr;
}

QStringList lineNames(const PlotSource& source)
{
    QStringList names;
    for (int i = 0; i < source.lineCount(); ++i)
        names << source.lineName(i);
    return names;
}

// A stand-in engine playing every task by its --task ($5): the training tasks run `training`,
// an evaluator `evaluator`. Each reads the token and the experiment from stdin, as `start`
// does, and appends its task and token to "started" beside the script. `$3` is the run directory. An evaluator says it is ready
// (its SIGTERM handling in place) in "$3/evaluator-ready"; under MultiWorkerMirrored with an
// evaluator in the cluster, training waits for that (at most 20 s) before it ends, so that
// what the launcher does next meets an evaluator that is set up.
// A ps task (ParameterServer) runs `parameterServer`, which says it is ready in "$3/ps-ready";
// training waits for that as for an evaluator.
QString standIn(const QTemporaryDir& dir, const QByteArray& training, const QByteArray& evaluator,
                const QByteArray& parameterServer = {})
{
    return writeScript(dir, "engine",
                       "task=$5\n"
                       "read -r token\n"
                       "read -r length\n"
                       "experiment=$(head -c \"$length\")\n"
                       "echo \"$task $token\" >> \"$(dirname \"$0\")/started\"\n"
                       "emit() { printf '{\"v\":1,\"t\":%s,\"task\":\"%s\",%s}\\n' \"$(date +%s.%N)\" \"$task\" \"$1\"; }\n"
                       "emit '\"type\":\"hello\",\"pid\":'$$\n"
                       "case \"$task\" in\n"
                       "  evaluator:*)\n" + evaluator + "\n    ;;\n"
                       "  ps:*)\n" + parameterServer + "\n    ;;\n"
                       "  *)\n"
                       "    if echo \"$experiment\" | grep -q ParameterServer; then\n"
                       "      i=0; while [ ! -e \"$3/ps-ready\" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done\n"
                       "    fi\n"
                       "    if echo \"$experiment\" | grep -q MultiWorkerMirrored && echo \"$experiment\" | grep -q evaluator; then\n"
                       "      i=0; while [ ! -e \"$3/evaluator-ready\" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done\n"
                       "    fi\n" + training + "\n    ;;\n"
                       "esac\n");
}

// Training that ends well: a step, the final weights written (what the evaluator waits for), done.
const QByteArray kTrainsWell =
    "    emit '\"type\":\"step\",\"step\":5,\"loss\":0.5,\"samples_per_sec\":100,\"replicas\":[{\"replica\":0,\"device\":\"cpu:0\",\"loss\":0.5,\"samples\":16}]'\n"
    "    touch \"$3/model.weights\"\n"
    "    emit '\"type\":\"done\",\"status\":\"completed\",\"steps\":5'";
// Training that fails on its own error.
const QByteArray kTrainingFails =
    "    emit '\"type\":\"error\",\"kind\":\"data\",\"message\":\"truncated file\",\"fatal\":true'\n"
    "    exit 1";
// An evaluator that evaluates the final weights once they are there, then ends by itself; on
// SIGTERM it ends as stopped.
const QByteArray kEvaluatesTheFinalWeights =
    "    trap 'emit \"\\\"type\\\":\\\"done\\\",\\\"status\\\":\\\"stopped\\\",\\\"evaluations\\\":0\"; exit 0' TERM\n"
    "    touch \"$3/evaluator-ready\"\n"
    "    while [ ! -e \"$3/model.weights\" ]; do sleep 0.05; done\n"
    "    sleep 0.3\n"
    "    emit '\"type\":\"evaluation\",\"step\":5,\"epoch\":0,\"checkpoint\":\"model.weights\",\"metrics\":{\"loss\":0.25,\"accuracy\":0.75},\"examples\":150,\"ms\":12'\n"
    "    emit '\"type\":\"done\",\"status\":\"completed\",\"evaluations\":1'";
// An evaluator that waits for checkpoints forever (as the real one does when the chief dies);
// on SIGTERM it ends as stopped.
const QByteArray kEvaluatesForever =
    "    trap 'emit \"\\\"type\\\":\\\"done\\\",\\\"status\\\":\\\"stopped\\\",\\\"evaluations\\\":0\"; exit 0' TERM\n"
    "    touch \"$3/evaluator-ready\"\n"
    "    while :; do sleep 0.05; done";
// A parameter server that serves until it is stopped (the coordinator's shutdown, or the
// launcher's once the coordinator has ended), then ends as completed.
const QByteArray kServesUntilStopped =
    "    trap 'emit \"\\\"type\\\":\\\"done\\\",\\\"status\\\":\\\"completed\\\",\\\"steps\\\":0\"; exit 0' TERM\n"
    "    touch \"$3/ps-ready\"\n"
    "    while :; do sleep 0.05; done";
// An evaluator deaf to SIGTERM.
const QByteArray kIgnoresTerm = "    trap '' TERM\n    touch \"$3/evaluator-ready\"\n    exec sleep 60";

// The tiny experiment under MultiWorkerMirrored with an evaluator (for the stand-ins: one worker).
Json withEvaluator(Json experiment)
{
    experiment["cluster"]["tasks"].push_back({{"type", "evaluator"}, {"node", "local"}});
    return experiment;
}

} // namespace

class TestMultiWorkerLaunch : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_runs = 0;

    QString newRunDir() { return m_dir.filePath(QStringLiteral("run-%1").arg(++m_runs)); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFileInfo(kEngine).isExecutable(), STRATA_ENGINE_PATH);
    }

    void twoWorkersTrainToTheEnd()
    {
        const Json experiment = multiWorker(tinyExperiment(2), 2, 2);
        const Validation v = validate(experiment, QDir::currentPath(), HostCapabilities{});
        QVERIFY2(v.ok(), qPrintable(v.problems.value(0).text()));
        QCOMPARE(v.workers, 2);
        QCOMPARE(v.replicas, 4);

        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(experiment, kEngine, newRunDir(), &error), qPrintable(error));
        QCOMPARE(launcher.tasks(), (QStringList{"worker:0", "worker:1"}));
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(finished.count(), 1);

        // 600 examples in global batches of 4 x 16: 10 steps an epoch, on both workers.
        std::vector<uint64_t> crcs;
        for (const QString& task : {QStringLiteral("worker:0"), QStringLiteral("worker:1")}) {
            QVERIFY2(withTask(store, [&](const TaskData& td) {
                QVERIFY2(td.state == TaskState::Completed, qPrintable(task + ": " + td.error));
                QCOMPARE(td.start["replicas"].get<int>(), 4);
                QCOMPARE(td.start["task_replicas"].get<int>(), 2);
                QCOMPARE(td.start["workers"].get<int>(), 2);
                QCOMPARE(td.done["steps"].get<int64_t>(), int64_t(20));
                crcs.push_back(td.done["weights_crc32"].get<uint64_t>());
                // Each worker's own two replicas, each with its loss over the steps.
                QCOMPARE(int(td.replicas.size()), 2);
                for (int r = 0; r < 2; ++r) {
                    QCOMPARE(td.replicas[size_t(r)].device, QStringLiteral("cpu:%1").arg(r));
                    QVERIFY(td.replicas[size_t(r)].loss.size() >= 2);
                }
                QVERIFY(td.samplesPerSec.size() >= 2);
                QVERIFY(td.samplesPerSec.lastY() > 0);
            }, task), qPrintable(task));
        }
        QCOMPARE(crcs[0], crcs[1]); // one model, bitwise equal on every worker
        // Only the chief (worker:0, the first training task) writes checkpoints.
        QVERIFY(withTask(store, [](const TaskData& td) { QVERIFY(!td.checkpoints.empty()); }, "worker:0"));
        QVERIFY(withTask(store, [](const TaskData& td) { QVERIFY(td.checkpoints.empty()); }, "worker:1"));

        // The dashboard's lines: four replicas keyed by task and device, and the validation loss
        // of each epoch; both workers' throughput and the total (tasks in the order they first
        // reported).
        ReplicaLossLines loss(store);
        QStringList lossNames = lineNames(loss);
        lossNames.sort();
        QCOMPARE(lossNames, (QStringList{"validation loss", "worker:0 replica 0 (cpu:0)", "worker:0 replica 1 (cpu:1)",
                                         "worker:1 replica 0 (cpu:0)", "worker:1 replica 1 (cpu:1)"}));
        for (int i = 0; i < loss.lineCount(); ++i)
            QVERIFY2(loss.pointCount(i) >= 2, qPrintable(loss.lineName(i)));
        ThroughputLines throughput(store);
        QStringList throughputNames = lineNames(throughput);
        QCOMPARE(throughputNames.size(), 3);
        QCOMPARE(throughputNames.takeLast(), QString("total"));
        throughputNames.sort();
        QCOMPARE(throughputNames, (QStringList{"worker:0", "worker:1"}));
        for (int i = 0; i < throughput.lineCount(); ++i)
            QVERIFY2(throughput.pointCount(i) >= 1, qPrintable(throughput.lineName(i)));
        // The total at a step is both workers' latest windows at or before it, added up.
        double x = 0, y = 0;
        throughput.forEachPoint(2, [&](double px, double py) { x = px; y = py; });
        double sum = 0;
        for (const QString& task : {QStringLiteral("worker:0"), QStringLiteral("worker:1")})
            withTask(store, [&](const TaskData& td) {
                int64_t at = td.samplesPerSec.lowerBound(x);
                if (at == td.samplesPerSec.size() || td.samplesPerSec.x(at) > x)
                    --at;
                QVERIFY(at >= 0);
                sum += td.samplesPerSec.y(at);
            }, task);
        QVERIFY2(qAbs(y - sum) <= 1e-3 * sum, qPrintable(QStringLiteral("%1 vs %2").arg(y).arg(sum)));

        // Placement: two tasks of one job, each with its devices and replicas, and the reduction.
        const QList<TaskPlacement> placed = placements(store);
        QCOMPARE(placed.size(), 2);
        for (const TaskPlacement& p : placed) {
            QCOMPARE(p.strategy, QString("MultiWorkerMirrored"));
            QCOMPARE(p.jobTasks, (QStringList{"worker:0", "worker:1"}));
            QCOMPARE(p.totalReplicas, qint64(4));
            QCOMPARE(p.replicas.size(), 2);
            QCOMPARE(p.replicas[1].device, QString("cpu:1"));
            QVERIFY2(p.reduction.contains("bucket"), qPrintable(p.reduction));
            QCOMPARE(p.bucketBytes, strata::app::defaultBucketBytes());
            QVERIFY(p.buckets >= 1);
            QVERIFY(p.reductionBytes > 0);
        }
        // Nobody lost, nothing left running.
        QVERIFY(lostTasks(store).isEmpty());
        for (qint64 pid : reportedPids(store))
            QVERIFY(!processExists(pid));
    }

    void twoJobsWithAutomaticPortsDoNotCollide()
    {
        // Two jobs on this machine at once, both with automatic ports (the default cluster
        // gives both 29500 on paper): each launch takes ports free at that moment.
        Json job = multiWorker(endlessExperiment(), 2);
        for (Json& t : job["cluster"]["tasks"])
            t.erase("port");
        MetricsStore firstStore, secondStore;
        JobLauncher first(&firstStore), second(&secondStore);
        QSignalSpy firstDone(&first, &JobLauncher::finished), secondDone(&second, &JobLauncher::finished);
        QString error;
        QVERIFY2(first.start(job, kEngine, newRunDir(), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(stepOfTask(firstStore, "worker:0") > 0, kRunTimeoutMs); // its rendezvous listens
        QVERIFY2(second.start(job, kEngine, newRunDir(), &error), qPrintable(error));
        // Both train at once.
        QTRY_VERIFY_WITH_TIMEOUT(stepOfTask(secondStore, "worker:1") > 0 && stepOfTask(firstStore, "worker:1") > 0,
                                 kRunTimeoutMs);
        first.stop();
        second.stop();
        QVERIFY(firstDone.count() == 1 || firstDone.wait(kRunTimeoutMs));
        QVERIFY(secondDone.count() == 1 || secondDone.wait(kRunTimeoutMs));
        const auto ports = [](const JobLauncher& launcher) {
            QList<int> out;
            for (const Json& t : launcher.experiment()["cluster"]["tasks"])
                out << t["port"].get<int>();
            return out;
        };
        qInfo() << "ports" << ports(first) << ports(second);
        QVERIFY(!ports(first).contains(0));
        QCOMPARE(ports(first).front(), int(strata::schema::kFirstAutomaticPort));
        QVERIFY2(ports(second).front() != ports(first).front(), "the second job took the first one's rendezvous port");
        for (const MetricsStore* store : {&firstStore, &secondStore})
            for (const QString& task : {QStringLiteral("worker:0"), QStringLiteral("worker:1")})
                QVERIFY(withTask(*store, [&](const TaskData& td) {
                    QVERIFY2(td.state == TaskState::Stopped, qPrintable(task + ": " + td.error));
                }, task));
    }

    void killedWorkerEndsTheJobAndIsShownLost()
    {
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(multiWorker(endlessExperiment(), 2), kEngine, newRunDir(), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(stepOfTask(store, "worker:0") > 0 && stepOfTask(store, "worker:1") > 0, kRunTimeoutMs);
        const QList<qint64> pids = reportedPids(store);
        QCOMPARE(pids.size(), 2);

        QElapsedTimer clock;
        clock.start();
        launcher.killTask("worker:1"); // the dashboard's Kill task on worker:1
        QVERIFY(finished.wait(kRunTimeoutMs));
        QVERIFY2(clock.elapsed() < 15000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(!launcher.isRunning());

        // The survivor ended with an error naming the killed worker.
        QVERIFY(withTask(store, [](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Failed);
            QVERIFY2(td.error.startsWith("lost worker:1 ("), qPrintable(td.error));
            QVERIFY(!td.crashed);
        }, "worker:0"));
        QVERIFY(withTask(store, [](const TaskData& td) {
            QVERIFY(td.crashed);
            QCOMPARE(td.exitCode, int(SIGKILL));
        }, "worker:1"));
        // worker:1 is lost (killed, and named by worker:0); worker:0 failed because of it.
        const QList<TaskSummary> tasks = taskSummaries(store);
        const TaskSummary* killed = summaryOf(tasks, "worker:1");
        const TaskSummary* survivor = summaryOf(tasks, "worker:0");
        QVERIFY(killed && survivor);
        QVERIFY(killed->lost);
        QCOMPARE(stateText(*killed), QString("lost"));
        QVERIFY2(killed->lostReason.contains("killed by signal 9"), qPrintable(killed->lostReason));
        QVERIFY2(killed->lostReason.contains("named lost by worker:0"), qPrintable(killed->lostReason));
        QVERIFY(!survivor->lost);
        QCOMPARE(stateText(*survivor), stateName(TaskState::Failed));
        QVERIFY2(survivor->error.contains("worker:1"), qPrintable(survivor->error));
        // Nothing left running.
        for (qint64 pid : pids)
            QVERIFY2(!processExists(pid), qPrintable(QString::number(pid)));
    }

    void stoppedWorkerIsNamedLostAndEnded()
    {
        // SIGSTOP: alive but silent. The survivor names it after its heartbeats stop; the
        // launcher then ends it (SIGTERM stays pending on a stopped process: killed after
        // the grace period).
        MetricsStore store;
        JobLauncher launcher(&store);
        launcher.setGrace(1000);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(multiWorker(endlessExperiment(), 2), kEngine, newRunDir(), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(stepOfTask(store, "worker:0") > 0 && stepOfTask(store, "worker:1") > 0, kRunTimeoutMs);
        const QList<qint64> pids = reportedPids(store);
        qint64 stopped = 0;
        withTask(store, [&](const TaskData& td) { stopped = td.hello["pid"].get<qint64>(); }, "worker:1");
        QVERIFY(::kill(pid_t(stopped), SIGSTOP) == 0);
        QVERIFY(finished.wait(kRunTimeoutMs));
        QVERIFY(withTask(store, [](const TaskData& td) {
            QVERIFY2(td.error.contains("lost worker:1 (on 127.0.0.1: not responding"), qPrintable(td.error));
        }, "worker:0"));
        QVERIFY(withTask(store, [](const TaskData& td) {
            QVERIFY(td.crashed);
            QCOMPARE(td.exitCode, int(SIGKILL));
        }, "worker:1"));
        const TaskSummary* hung = summaryOf(taskSummaries(store), "worker:1");
        QVERIFY(hung && hung->lost);
        QVERIFY2(hung->lostReason.contains("stopped or hung"), qPrintable(hung->lostReason));
        for (qint64 pid : pids)
            QVERIFY(!processExists(pid));
    }

    void evaluatorStartedOnlyUnderMultiWorkerMirrored()
    {
        QTemporaryDir scripts;
        const QString engine = standIn(scripts, kTrainsWell, kEvaluatesTheFinalWeights);
        const auto started = [&] {
            QFile f(scripts.filePath("started"));
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts)
                                               : QStringList();
        };
        // OneDevice with an evaluator in the cluster: the training task evaluates; no evaluator.
        Json single = tinyExperiment();
        single["cluster"] = {{"tasks", {{{"type", "worker"}, {"node", "local"}}, {{"type", "evaluator"}, {"node", "local"}}}}};
        {
            MetricsStore store;
            JobLauncher launcher(&store);
            QSignalSpy finished(&launcher, &JobLauncher::finished);
            QString error;
            QVERIFY2(launcher.start(single, engine, newRunDir(), &error), qPrintable(error));
            QCOMPARE(launcher.tasks(), QStringList{"worker:0"});
            QVERIFY(finished.wait(kRunTimeoutMs));
        }
        QCOMPARE(started().size(), 1);
        QFile::remove(scripts.filePath("started"));

        // MultiWorkerMirrored: the evaluator too, with the job's token; it evaluates the final
        // weights and ends by itself.
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(withEvaluator(multiWorker(tinyExperiment(), 1)), engine, newRunDir(), &error),
                 qPrintable(error));
        QCOMPARE(launcher.tasks(), (QStringList{"worker:0", "evaluator:0"}));
        QVERIFY(finished.wait(kRunTimeoutMs));
        const QStringList lines = started();
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0].section(' ', 1), lines[1].section(' ', 1)); // one job, one token
        QVERIFY(lines.filter(QRegularExpression("^evaluator:0 [0-9a-f]{64}$")).size() == 1);

        QVERIFY(withTask(store, [](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Completed); // not stopped: it was given the time
            QVERIFY(!td.crashed);
            QCOMPARE(td.evaluations, 1);
            QCOMPARE(td.evaluation.at("loss").lastY(), 0.25f);
            QCOMPARE(td.evaluation.at("accuracy").x(0), 5.0);
            QCOMPARE(td.step, int64_t(5));
        }, "evaluator:0"));
        EvaluationLines evaluation(store);
        QCOMPARE(lineNames(evaluation), (QStringList{"evaluator:0 accuracy", "evaluator:0 loss"}));
        // Throughput and step times are the training task's alone; the total needs no evaluator.
        QCOMPARE(lineNames(ThroughputLines(store)), QStringList{"worker:0"});
        bool logged = false;
        for (const LogEntry& e : logOf(store))
            logged = logged || (e.task == "evaluator:0" && e.message.startsWith("evaluated the checkpoint of step 5")
                                && e.message.contains("accuracy 0.7500"));
        QVERIFY(logged);
        const TaskSummary* summary = summaryOf(taskSummaries(store), "evaluator:0");
        QVERIFY(summary);
        QVERIFY2(summary->result.startsWith("1 evaluation(s), last: "), qPrintable(summary->result));
    }

    // ParameterServer: the chief (the coordinator), the workers and the ps task all started,
    // each with the job's token, on automatic ports made explicit; the job ends with the
    // chief, the ps task still serving then stopped after the grace.
    void parameterServerJobStartsEveryTask()
    {
        QTemporaryDir scripts;
        MetricsStore store;
        JobLauncher launcher(&store);
        launcher.setEvaluatorGrace(300);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        Json experiment = tinyExperiment();
        experiment["strategy"] = {{"type", "ParameterServer"}};
        experiment["cluster"] = {{"tasks", {{{"type", "chief"}, {"node", "local"}},
                                            {{"type", "worker"}, {"node", "local"}, {"count", 2}},
                                            {{"type", "ps"}, {"node", "local"}}}}};
        QString error;
        QVERIFY2(launcher.start(experiment, standIn(scripts, kTrainsWell, kEvaluatesForever, kServesUntilStopped),
                                newRunDir(), &error),
                 qPrintable(error));
        QCOMPARE(launcher.tasks(), (QStringList{"chief:0", "worker:0", "worker:1", "ps:0"}));
        for (const Json& task : launcher.experiment()["cluster"]["tasks"])
            QVERIFY2(task.value("port", 0) >= 29500, task.dump().c_str());
        QVERIFY(finished.wait(kRunTimeoutMs));
        QFile f(scripts.filePath("started"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 4);
        for (const QString& line : lines) {
            QVERIFY2(QRegularExpression("^(chief|worker|ps):\\d [0-9a-f]{64}$").match(line).hasMatch(), qPrintable(line));
            QCOMPARE(line.section(' ', 1), lines[0].section(' ', 1)); // one job, one token
        }
        QVERIFY(withTask(store, [](const TaskData& td) { QCOMPARE(td.state, TaskState::Completed); }, "chief:0"));
        QVERIFY(withTask(store, [](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Completed);
            QVERIFY(!td.crashed);
        }, "ps:0"));
        QCOMPARE(endedOutcome(store), RunOutcome::Completed);
    }

    void evaluatorStoppedWhenTrainingFails()
    {
        QTemporaryDir scripts;
        MetricsStore store;
        JobLauncher launcher(&store); // the default minute for a final evaluation: not waited for
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QElapsedTimer clock;
        clock.start();
        QVERIFY2(launcher.start(withEvaluator(multiWorker(tinyExperiment(), 1)),
                                standIn(scripts, kTrainingFails, kEvaluatesForever), newRunDir(), &error),
                 qPrintable(error));
        QVERIFY(finished.wait(kRunTimeoutMs));
        QVERIFY2(clock.elapsed() < 10000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(withTask(store, [](const TaskData& td) { QCOMPARE(td.state, TaskState::Failed); }, "worker:0"));
        QVERIFY(withTask(store, [](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Stopped); // asked (SIGTERM), not killed
            QVERIFY(!td.crashed);
            QCOMPARE(td.done["status"].get<std::string>(), std::string("stopped"));
        }, "evaluator:0"));
    }

    void evaluatorThatNeverEndsIsStoppedAfterItsGrace()
    {
        // Training ends well, but the evaluator does not end: stopped once its time is up.
        QTemporaryDir scripts;
        MetricsStore store;
        JobLauncher launcher(&store);
        launcher.setEvaluatorGrace(500);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(withEvaluator(multiWorker(tinyExperiment(), 1)),
                                standIn(scripts, kTrainsWell, kEvaluatesForever), newRunDir(), &error),
                 qPrintable(error));
        QVERIFY(finished.wait(kRunTimeoutMs));
        double trainingEnded = 0, evaluatorEnded = 0;
        QVERIFY(withTask(store, [&](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Completed);
            trainingEnded = td.lastEventTime;
        }, "worker:0"));
        QVERIFY(withTask(store, [&](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Stopped);
            evaluatorEnded = td.lastEventTime;
        }, "evaluator:0"));
        QVERIFY2(evaluatorEnded - trainingEnded >= 0.45, qPrintable(QString::number(evaluatorEnded - trainingEnded)));
    }

    void evaluatorDeafToSigtermIsKilled()
    {
        QTemporaryDir scripts;
        MetricsStore store;
        JobLauncher launcher(&store);
        launcher.setGrace(300);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(withEvaluator(multiWorker(tinyExperiment(), 1)),
                                standIn(scripts, kTrainingFails, kIgnoresTerm), newRunDir(), &error),
                 qPrintable(error));
        QVERIFY(finished.wait(kRunTimeoutMs));
        qint64 pid = 0;
        QVERIFY(withTask(store, [&](const TaskData& td) {
            QVERIFY(td.crashed);
            QCOMPARE(td.exitCode, int(SIGKILL));
            pid = td.hello["pid"].get<qint64>();
        }, "evaluator:0"));
        QVERIFY(!processExists(pid));
    }

    void hungWorkerNamedLostIsEnded()
    {
        // worker:0 reports worker:1 lost and fails; worker:1 (a stand-in that would sleep for
        // a minute) is asked to stop, and the job ends at once.
        QTemporaryDir scripts;
        const QString engine = writeScript(
            scripts, "engine",
            "read -r token\n"
            "if [ \"$5\" = worker:1 ]; then exec sleep 60; fi\n"
            "sleep 0.2\n"
            "echo '{\"v\":1,\"type\":\"error\",\"t\":2,\"task\":\"worker:0\",\"kind\":\"collective\",\"fatal\":true,"
            "\"message\":\"lost worker:1 (not responding for 3 s: stopped or hung) during gradient all-reduce (worker:0 saw: timed out)\"}'\n"
            "exit 1\n");
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QElapsedTimer clock;
        clock.start();
        QVERIFY2(launcher.start(multiWorker(tinyExperiment(), 2), engine, newRunDir(), &error), qPrintable(error));
        QVERIFY(finished.wait(kRunTimeoutMs));
        QVERIFY2(clock.elapsed() < 10000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(withTask(store, [](const TaskData& td) {
            QVERIFY(td.crashed);
            QCOMPARE(td.exitCode, int(SIGTERM));
        }, "worker:1"));
        const TaskSummary* hung = summaryOf(taskSummaries(store), "worker:1");
        QVERIFY(hung && hung->lost);
        QVERIFY2(hung->lostReason.contains("named lost by worker:0: not responding for 3 s"), qPrintable(hung->lostReason));
    }
};

QTEST_GUILESS_MAIN(TestMultiWorkerLaunch)
#include "tst_multi_worker_launch.moc"
