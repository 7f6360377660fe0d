// A straggler named in a real job: a ParameterServer job of the build's engine (a coordinator,
// three workers, a ps task) through the launcher, one worker slowed on purpose from outside as
// a slow machine would be (the test freezes and resumes its process, SIGSTOP and SIGCONT, four
// fifths of the time, in periods far shorter than its steps add up to in a bucket; nothing in
// the engine knows). The store names that worker (task and host) in the log and in the task
// table, and nobody else; `strata compare` on the finished run's directory (a replay) names it
// with the same stretch.

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

// A ParameterServer job on this machine: a coordinator, `workers` workers and a ps task on
// free ports; a model whose steps take some milliseconds (so that a bucket of steps spans many
// of the slowed worker's freezes), 1200 global steps, no evaluation.
Json parameterServerJob(int workers)
{
    Json e = tinyExperiment(2);
    e["name"] = "straggler";
    e["strategy"] = {{"type", "ParameterServer"}};
    e["model"]["input_shape"] = {64};
    e["model"]["layers"] = Json::parse(R"([{"type": "Dense", "units": 256, "activation": "relu"},
                                           {"type": "Dense", "units": 256, "activation": "relu"},
                                           {"type": "Dense", "units": 3}])");
    e["data"]["source"]["features"] = 64;
    e["data"]["source"]["samples"] = 600 * 32;
    e["data"]["validation"] = "none";
    e["data"]["evaluate_test"] = false;
    e["training"]["batch_size"] = 32;
    const int port = freePorts(workers + 2);
    e["cluster"] = {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
                    {"tasks", {{{"type", "chief"}, {"node", "local"}, {"port", port}},
                               {{"type", "worker"}, {"node", "local"}, {"count", workers}, {"port", port + 1}},
                               {{"type", "ps"}, {"node", "local"}, {"port", port + 1 + workers}}}}};
    return e;
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

// The mean of every step `task` reported (ms).
double meanStepMs(const MetricsStore& store, const QString& task)
{
    double sum = 0;
    int64_t n = 0;
    withTask(store, [&](const TaskData& td) {
        for (int64_t i = 0; i < td.stepMs.size(); ++i)
            sum += double(td.stepMs.y(i));
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

    void slowedWorkerIsNamedLiveAndByCompare()
    {
        const QString runDir = m_dir.filePath("run");
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(parameterServerJob(3), kEngine, runDir, &error), qPrintable(error));
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
        for (const QString task : {"chief:0", "worker:0", "worker:1", "worker:2", "ps:0"})
            QVERIFY(withTask(store, [&](const TaskData& td) {
                QVERIFY2(td.state == TaskState::Completed, qPrintable(task + ": " + td.error + "\n" + log));
            }, task));

        // Named, and nobody else: the others run at their own pace under ParameterServer.
        const std::vector<Straggler> found = store.stragglers();
        QVERIFY2(!found.empty(), qPrintable(logText(store)));
        QCOMPARE(stragglerTasks(found), QStringList{kSlowed});
        const Straggler& first = found.front();
        qInfo().noquote() << "named:" << stretchText(first) << "| mean step (ms):" << meanStepMs(store, "worker:0")
                          << meanStepMs(store, "worker:1") << meanStepMs(store, kSlowed);
        const QString place = QStringLiteral("local (127.0.0.1)");
        QCOMPARE(first.place, place);
        // It was slowed indeed: over the whole run its mean step is far above the others'.
        QVERIFY2(meanStepMs(store, kSlowed) >= 2 * std::max(meanStepMs(store, "worker:0"), meanStepMs(store, "worker:1")),
                 qPrintable(stretchText(first)));
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
        QVERIFY2(report.contains(QStringLiteral("  run: %1\n").arg(stretchText(first))), qPrintable(report));
        const QString section = report.mid(report.indexOf(QLatin1String("\nStragglers:\n")));
        for (const char* other : {"worker:0", "worker:1"})
            QVERIFY2(!section.contains(other), qPrintable(report));
        QVERIFY2(QRegularExpression(QStringLiteral(R"(stragglers\s+worker:2 \d+\.\dx\n)")).match(report).hasMatch(),
                 qPrintable(report));
    }
};

QTEST_GUILESS_MAIN(TestStragglerJob)
#include "tst_straggler_job.moc"
