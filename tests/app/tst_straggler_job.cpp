// A straggler named in a real job of the build's engine, launched through the launcher, one
// worker slowed on purpose from outside as a slow machine would be: the test freezes and resumes
// its process (SIGSTOP, SIGCONT) four fifths of the time, in periods far shorter than a bucket
// of steps; nothing in the engine knows. Under ParameterServer (a coordinator, three workers, a
// ps task) nobody waits for it; under MultiWorkerMirrored (four workers, a model whose compute
// is a good part of the step) every worker's step lasts as long as its, and only their own time
// tells it apart. The store names that worker (task and host) in the log and in the task table,
// and nobody else; `strata compare` on the finished run's directory (a replay) names it with the
// same stretch.

#include "../event_deadline.h"
#include "app_test_util.h"

#include "app/compare/run_comparison.h"
#include "app/launch/job_launcher.h"
#include "app/metrics/placement.h"
#include "app/metrics/stragglers.h"

#include <QSignalSpy>
#include <QtTest>

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <optional>
#include <thread>

using namespace strata::app;
using namespace apptest;

namespace {

const QString kEngine = QStringLiteral(STRATA_ENGINE_PATH);
const QString kSlowed = QStringLiteral("worker:2");

// Freezes a process `stoppedMs` of every `stoppedMs + runningMs` until stopped, or until the
// process is gone. Through a pidfd: a pid reused after the process ended is never signalled.
class DutyCycle {
public:
    DutyCycle(qint64 pid, int stoppedMs, int runningMs)
        : m_fd(int(::syscall(SYS_pidfd_open, pid_t(pid), 0)))
    {
        if (m_fd < 0)
            return;
        m_thread = std::thread([this, stoppedMs, runningMs] {
            while (!m_stop.load()) {
                if (!signal(SIGSTOP))
                    return;
                std::this_thread::sleep_for(std::chrono::milliseconds(stoppedMs));
                if (!signal(SIGCONT))
                    return;
                ++m_cycles;
                std::this_thread::sleep_for(std::chrono::milliseconds(runningMs));
            }
        });
    }
    ~DutyCycle()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
        if (m_fd >= 0) {
            signal(SIGCONT); // never left frozen
            ::close(m_fd);
        }
    }
    bool started() const { return m_fd >= 0; }
    int cycles() const { return m_cycles.load(); }

private:
    bool signal(int sig) { return ::syscall(SYS_pidfd_send_signal, m_fd, sig, nullptr, 0) == 0; }

    int m_fd;
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_cycles{0};
    std::thread m_thread;
};

// A small model whose steps take some milliseconds, so that a bucket of steps spans many of the
// slowed worker's freezes; no evaluation.
Json stepsOfMilliseconds(int features, int units, int batch, int64_t samples)
{
    Json e = tinyExperiment(1);
    e["name"] = "straggler";
    e["model"]["input_shape"] = {features};
    e["model"]["layers"] = {{{"type", "Dense"}, {"units", units}, {"activation", "relu"}},
                            {{"type", "Dense"}, {"units", units}, {"activation", "relu"}},
                            {{"type", "Dense"}, {"units", 3}}};
    e["data"]["source"]["features"] = features;
    e["data"]["source"]["samples"] = samples;
    e["data"]["validation"] = "none";
    e["data"]["evaluate_test"] = false;
    e["training"]["batch_size"] = batch;
    return e;
}

// ParameterServer on this machine: a coordinator, `workers` workers and a ps task on free ports;
// 1200 global steps of a few milliseconds.
Json parameterServerJob(int workers)
{
    Json e = stepsOfMilliseconds(64, 256, 32, 1200 * 32);
    e["strategy"] = {{"type", "ParameterServer"}};
    const int port = freePorts(workers + 2);
    e["cluster"] = {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
                    {"tasks", {{{"type", "chief"}, {"node", "local"}, {"port", port}},
                               {{"type", "worker"}, {"node", "local"}, {"count", workers}, {"port", port + 1}},
                               {{"type", "ps"}, {"node", "local"}, {"port", port + 1 + workers}}}}};
    return e;
}

// MultiWorkerMirrored on this machine, `workers` workers of one replica: 160 steps (8 buckets)
// whose compute (a batch of 256 through two layers of 512) is a good part of the step, so that
// the slowed worker is mostly frozen in its own work rather than in the all-reduce.
Json mirroredJob(int workers)
{
    return multiWorker(stepsOfMilliseconds(64, 512, 256, 160 * 256 * workers), workers);
}

qint64 pidOf(const MetricsStore& store, const QString& task)
{
    qint64 pid = 0;
    withTask(store, [&](const TaskData& td) {
        if (td.hello.is_object() && td.hello.contains("pid"))
            pid = td.hello["pid"].get<qint64>();
    }, task);
    return pid;
}

// The mean of every step `task` reported (ms): the whole step, or its own part (the step less
// its communication).
double meanStepMs(const MetricsStore& store, const QString& task, bool own = false)
{
    double sum = 0;
    int64_t n = 0;
    withTask(store, [&](const TaskData& td) {
        for (int64_t i = 0; i < td.stepMs.size(); ++i)
            sum += double(td.stepMs.y(i));
        if (own)
            for (int64_t i = 0; i < td.commMs.size(); ++i)
                sum -= double(td.commMs.y(i));
        n = td.stepMs.size();
    }, task);
    return n > 0 ? sum / double(n) : 0;
}

QStringList stragglerTasks(const std::vector<Straggler>& found)
{
    QStringList tasks;
    for (const Straggler& s : found)
        if (!tasks.contains(s.task))
            tasks << s.task;
    return tasks;
}

} // namespace

class TestStragglerJob : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFileInfo(kEngine).isExecutable(), STRATA_ENGINE_PATH);
    }

    void slowedWorkerIsNamedLiveAndByCompare_data()
    {
        QTest::addColumn<bool>("parameterServer");
        QTest::newRow("ParameterServer: nobody waits for it") << true;
        QTest::newRow("MultiWorkerMirrored: everybody waits for it") << false;
    }

    void slowedWorkerIsNamedLiveAndByCompare()
    {
        QFETCH(bool, parameterServer);
        const QString runDir = m_dir.filePath(parameterServer ? "ps-run" : "mirrored-run");
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(parameterServer ? parameterServerJob(3) : mirroredJob(4), kEngine, runDir, &error),
                 qPrintable(error));
        // Slowed from its first word on (the job takes seconds: it is slowed for all of it).
        QTRY_VERIFY_WITH_TIMEOUT(pidOf(store, kSlowed) > 0 || !finished.isEmpty(), testing::kEventDeadlineMs);
        QVERIFY2(finished.isEmpty(), qPrintable(logText(store)));
        std::optional<DutyCycle> slow(std::in_place, pidOf(store, kSlowed), 40, 10);
        QVERIFY(slow->started());
        QVERIFY(finished.wait(testing::kEventDeadlineMs));
        const int cycles = slow->cycles();
        slow.reset();
        QVERIFY2(cycles > 0, "the worker was never frozen");

        // Every task completed, and the slowed worker took part.
        const QString log = logText(store);
        const QStringList workers = parameterServer ? QStringList{"worker:0", "worker:1", kSlowed}
                                                    : QStringList{"worker:0", "worker:1", kSlowed, "worker:3"};
        for (const QString& task : workers + (parameterServer ? QStringList{"chief:0", "ps:0"} : QStringList()))
            QVERIFY(withTask(store, [&](const TaskData& td) {
                QVERIFY2(td.state == TaskState::Completed, qPrintable(task + ": " + td.error + "\n" + log));
            }, task));
        // It was slowed indeed. Under ParameterServer its steps take far longer than the others';
        // under MultiWorkerMirrored every worker's step takes as long (they wait for it in the
        // all-reduce), its own part far longer.
        QStringList figures;
        double others = 0;
        for (const QString& task : workers) {
            figures << QStringLiteral("%1: %2 ms a step, %3 ms its own")
                           .arg(task)
                           .arg(meanStepMs(store, task), 0, 'f', 1)
                           .arg(meanStepMs(store, task, true), 0, 'f', 1);
            if (task != kSlowed)
                others = std::max(others, meanStepMs(store, task, !parameterServer));
        }
        qInfo().noquote() << figures.join("; ");
        QVERIFY2(meanStepMs(store, kSlowed, !parameterServer) >= 1.5 * others, qPrintable(figures.join("; ")));
        if (!parameterServer)
            for (const QString& task : workers)
                QVERIFY2(qAbs(meanStepMs(store, task) / meanStepMs(store, kSlowed) - 1) < 0.1,
                         qPrintable(figures.join("; ")));

        // Named, and nobody else (under MultiWorkerMirrored not the workers that only wait for it).
        const std::vector<Straggler> found = store.stragglers();
        QVERIFY2(!found.empty(), qPrintable(logText(store)));
        QCOMPARE(stragglerTasks(found), QStringList{kSlowed});
        const Straggler& first = found.front();
        qInfo().noquote() << "named:" << stretchText(first);
        const QString place = QStringLiteral("local (127.0.0.1)");
        QCOMPARE(first.place, place);
        // In the log, from the worker, as a warning, with its host and figures.
        QStringList named;
        for (const LogEntry& e : logOf(store))
            if (e.message.contains(QLatin1String("is a straggler"))) {
                QCOMPARE(e.task, kSlowed);
                QCOMPARE(e.level, QString("warning"));
                named << e.message;
            }
        QVERIFY2(!named.isEmpty(), qPrintable(logText(store)));
        QCOMPARE(named.front(), stragglerText(first));
        QVERIFY2(named.front().startsWith(kSlowed + " on " + place + " is a straggler: "), qPrintable(named.front()));
        // In the task table: its row, and no other.
        for (const TaskSummary& t : taskSummaries(store))
            QCOMPARE(t.straggler.isEmpty(), t.task != kSlowed);

        // `strata compare` on the run's directory: rebuilt from its files, the same stretches.
        std::vector<LoadedRun> runs;
        QVERIFY2(loadRuns({runDir}, runs, &error), qPrintable(error));
        const std::vector<Straggler> replayed = runs.front().store->stragglers();
        QCOMPARE(int(replayed.size()), int(found.size()));
        for (size_t i = 0; i < found.size(); ++i) {
            QCOMPARE(replayed[i].task, found[i].task);
            QCOMPARE(replayed[i].sinceStep, found[i].sinceStep);
            QCOMPARE(replayed[i].untilStep, found[i].untilStep);
            QCOMPARE(stretchText(replayed[i]), stretchText(found[i]));
        }
        QString report;
        QVERIFY2(compareRunDirs({runDir}, CompareOptions{}, ReportFormat::Text, &report, &error), qPrintable(error));
        const QString label = QFileInfo(runDir).fileName();
        QVERIFY2(report.contains(QStringLiteral("  %1: %2\n").arg(label, stretchText(first))), qPrintable(report));
        const QString section = report.mid(report.indexOf(QLatin1String("\nStragglers:\n")));
        for (const QString& other : workers)
            if (other != kSlowed)
                QVERIFY2(!section.contains(other), qPrintable(report));
        QVERIFY2(QRegularExpression(QStringLiteral(R"(stragglers\s+worker:2 \d+\.\dx\n)")).match(report).hasMatch(),
                 qPrintable(report));
    }
};

QTEST_GUILESS_MAIN(TestStragglerJob)
#include "tst_straggler_job.moc"
