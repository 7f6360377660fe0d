// app::runHeadless (what `strata run EXPERIMENT` does), called in-process with the real
// engine: exit status 0/1/2 and the message for each, the run directory, the epoch lines and
// outcome on stderr (a pipe), the progress bar on a terminal (a pseudo-terminal), and a
// clean stop on SIGINT; every run recorded in the run history ($STRATA_HISTORY) as started
// from "headless", checked against its experiment's plan there, and a history that cannot be
// opened only warned about.

#include "app_test_util.h"

#include "app/history/run_history.h"
#include "app/launch/headless_run.h"
#include "app/plan/plan_history.h"

#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTimer>
#include <QtTest>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <pty.h>
#include <termios.h>
#include <thread>
#include <unistd.h>

using namespace strata::app;
using namespace apptest;

namespace {

const QString kEngine = QStringLiteral(STRATA_ENGINE_PATH);

// Redirects this process's stderr (fd 2) into a pipe, or a pseudo-terminal so that
// isatty(2) holds, until finish(); a thread drains it so that writers never block.
class StderrCapture {
public:
    explicit StderrCapture(bool terminal)
    {
        std::fflush(stderr);
        int fds[2] = {-1, -1};
        if (terminal) {
            if (::openpty(&fds[0], &fds[1], nullptr, nullptr, nullptr) != 0)
                qFatal("openpty: %s", std::strerror(errno));
            termios t{};
            ::tcgetattr(fds[1], &t);
            ::cfmakeraw(&t); // no "\n" -> "\r\n": the bytes as written
            ::tcsetattr(fds[1], TCSANOW, &t);
        } else if (::pipe(fds) != 0) {
            qFatal("pipe: %s", std::strerror(errno));
        }
        m_read = fds[0];
        m_write = fds[1];
        for (int fd : {m_read, m_write})
            ::fcntl(fd, F_SETFD, FD_CLOEXEC); // engine processes must not hold them
        m_saved = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        ::dup2(m_write, STDERR_FILENO);
        m_reader = std::thread([this] {
            char buffer[4096];
            for (;;) {
                const ssize_t n = ::read(m_read, buffer, sizeof buffer);
                if (n > 0) {
                    std::lock_guard lock(m_mutex);
                    m_text.append(buffer, n);
                } else if (n < 0 && errno == EINTR) {
                    continue;
                } else {
                    break; // EOF (pipe) or EIO (terminal closed)
                }
            }
        });
    }
    ~StderrCapture() { finish(); }

    QByteArray finish()
    {
        if (m_saved >= 0) {
            std::fflush(stderr);
            ::dup2(m_saved, STDERR_FILENO);
            ::close(m_saved);
            ::close(m_write);
            m_saved = -1;
            m_reader.join();
            ::close(m_read);
        }
        std::lock_guard lock(m_mutex);
        return m_text;
    }

    QByteArray text()
    {
        std::lock_guard lock(m_mutex);
        return m_text;
    }

private:
    int m_read = -1, m_write = -1, m_saved = -1;
    std::thread m_reader;
    std::mutex m_mutex;
    QByteArray m_text;
};

struct Result {
    int status = -1;
    QByteArray err;
    qint64 ms = 0;
    QString text() const { return QString::fromUtf8(err); }
    // The lines of stderr, without empty ones.
    QStringList lines() const { return text().split('\n', Qt::SkipEmptyParts); }
};

} // namespace

class TestHeadlessRun : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_count = 0;
    struct sigaction m_sigint = {}, m_sigterm = {}; // as they were before any run

    QString writeExperiment(const Json& e)
    {
        return writeFile(m_dir.filePath(QStringLiteral("exp-%1.strata.json").arg(++m_count)),
                         QByteArray::fromStdString(e.dump(2)));
    }
    QString newRunDir() { return m_dir.filePath(QStringLiteral("run-%1").arg(++m_count)); }

    // Runs runHeadless with stderr captured; fails the test (instead of hanging) after 60 s.
    Result run(const HeadlessOptions& options, bool terminal = false)
    {
        QTimer watchdog;
        watchdog.setSingleShot(true);
        connect(&watchdog, &QTimer::timeout, [] { qFatal("runHeadless did not return within 60 s"); });
        watchdog.start(60000);
        Result r;
        QElapsedTimer clock;
        clock.start();
        StderrCapture capture(terminal);
        r.status = runHeadless(options);
        r.err = capture.finish();
        r.ms = clock.elapsed();
        return r;
    }

    // The runs of this test are recorded in a history of its own, never the user's.
    QString historyPath() const { return m_dir.filePath("history.sqlite"); }

    // The newest run in the test's history.
    std::optional<RunRecord> lastRecorded()
    {
        RunHistory history;
        QString error;
        std::vector<RunRecord> runs;
        RunFilter newest;
        newest.limit = 1;
        if (!history.open(historyPath(), &error) || !history.query(newest, &runs, &error) || runs.empty())
            return std::nullopt;
        return runs.front();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("STRATA_HISTORY", historyPath().toLocal8Bit());
        ::sigaction(SIGINT, nullptr, &m_sigint);
        ::sigaction(SIGTERM, nullptr, &m_sigterm);
    }

    void completedRunExitsZero()
    {
        const QString runDir = newRunDir();
        const Result r = run({writeExperiment(tinyExperiment(2)), runDir, kEngine});
        QVERIFY2(r.status == 0, qPrintable(r.text()));
        // Not a terminal: no progress bar, the epochs as Keras' verbose=2 prints them, then
        // the outcome and the run directory.
        QVERIFY2(!r.err.contains('\r'), r.err.constData());
        const QStringList lines = r.lines();
        QVERIFY2(lines.size() >= 4, qPrintable(r.text()));
        QVERIFY2(lines[lines.size() - 4].startsWith("Epoch 1 - loss: "), qPrintable(r.text()));
        QVERIFY2(lines[lines.size() - 3].startsWith("Epoch 2 - loss: "), qPrintable(r.text()));
        QVERIFY2(lines[lines.size() - 3].contains(" - accuracy: ") && lines[lines.size() - 3].contains(" - val_accuracy: "),
                 qPrintable(r.text()));
        QVERIFY2(lines[lines.size() - 2].startsWith("worker:0 completed: test loss "), qPrintable(r.text()));
        QCOMPARE(lines.last(), "Run directory: " + runDir);
        QVERIFY(r.err.endsWith('\n'));

        // The run directory given is where the events went.
        const QList<Json> events = engineEvents(runDir + "/events-worker-0.jsonl");
        QVERIFY(!events.isEmpty());
        QCOMPARE(events.back()["type"].get<std::string>(), std::string("done"));
        QCOMPARE(events.back()["status"].get<std::string>(), std::string("completed"));
        QCOMPARE(events.back()["steps"].get<int>(), 2 * 38);
        QVERIFY(QFileInfo::exists(runDir + "/launch.strata.json"));
        // The outcome line carries the test metrics of the `done` event.
        QVERIFY2(lines[lines.size() - 2].contains(
                     QString::number(events.back()["test"]["accuracy"].get<double>(), 'f', 4)),
                 qPrintable(r.text()));

        // Recorded in the run history, as a headless run.
        const std::optional<RunRecord> recorded = lastRecorded();
        QVERIFY(recorded);
        QCOMPARE(recorded->source, QString("headless"));
        QCOMPARE(recorded->runDir, runDir);
        QCOMPARE(recorded->status, RunStatus::Completed);
        QCOMPARE(recorded->steps, qint64(2 * 38));
        QCOMPARE(finalMetric(*recorded, "test", "accuracy"), std::optional(events.back()["test"]["accuracy"].get<double>()));
        QVERIFY(!r.text().contains("warning"));
    }

    void finishedRunIsCheckedAgainstThePlan()
    {
        // A plan of "tiny" made before the run (as the Plan view stores one): OneDevice at 1000/s.
        {
            RunHistory history;
            QString error;
            QVERIFY2(history.open(historyPath(), &error), qPrintable(error));
            PlanRecord plan;
            plan.experiment = QStringLiteral("tiny");
            plan.hosts = QStringLiteral("127.0.0.1");
            plan.madeAt = QDateTime::currentSecsSinceEpoch() - 60;
            plan.plan = QStringLiteral("{}");
            plan.predictions.push_back({QStringLiteral("OneDevice"), 1, 1000.0, 1.0});
            QVERIFY2(history.insertPlan(plan, &error), qPrintable(error));
        }
        HeadlessOptions options{writeExperiment(tinyExperiment(1)), newRunDir(), kEngine};
        options.checkFinished = &plan::againstThePlan;
        const Result r = run(options);
        QVERIFY2(r.status == 0, qPrintable(r.text()));
        // After the outcome, the check: the prediction, the run's own throughput and the error,
        // as the window's end-of-run message says them; recorded with the run.
        const std::optional<RunRecord> recorded = lastRecorded();
        QVERIFY(recorded && recorded->prediction);
        QCOMPARE(recorded->prediction->predictedSamplesPerSec, 1000.0);
        QVERIFY(recorded->prediction->measuredSamplesPerSec > 0);
        QCOMPARE(r.lines().last(), "Against the plan: " + predictionText(*recorded->prediction));
        QVERIFY(r.lines().last().startsWith("Against the plan: predicted 1000/s, measured "));
    }

    void failedRunsAreRecordedRefusedOnesAreNot()
    {
        // The engine fails at startup: recorded as failed, with its error.
        QString dataDir;
        Json e = unreadableDataExperiment(m_dir, &dataDir);
        const QString runDir = newRunDir();
        QCOMPARE(run({writeExperiment(e), runDir, kEngine}).status, 1);
        std::optional<RunRecord> recorded = lastRecorded();
        QVERIFY(recorded);
        QCOMPARE(recorded->runDir, runDir);
        QCOMPARE(recorded->status, RunStatus::Failed);
        QVERIFY2(recorded->error.contains(dataDir), qPrintable(recorded->error));

        // An experiment that does not validate starts nothing: not a run.
        e = tinyExperiment();
        e["training"]["epochs"] = 0;
        QCOMPARE(run({writeExperiment(e), newRunDir(), kEngine}).status, 2);
        QCOMPARE(lastRecorded()->id, recorded->id);
        // Nor does one whose data is not here: validation looks for it.
        e = tinyExperiment();
        e["data"]["source"] = {{"type", "mnist"}, {"dir", m_dir.filePath("no-mnist-here").toStdString()}};
        const Result missing = run({writeExperiment(e), newRunDir(), kEngine});
        QCOMPARE(missing.status, 2);
        QVERIFY2(missing.text().contains("data.source.dir: " + m_dir.filePath("no-mnist-here") + ": directory not found"),
                 qPrintable(missing.text()));
        QCOMPARE(lastRecorded()->id, recorded->id);
    }

    void unusableHistoryIsOnlyAWarning()
    {
        // A damaged history: the run goes on, a warning names the file, the file is kept.
        const QByteArray garbage(4096, '\x42');
        const QString damaged = writeFile(m_dir.filePath("damaged.sqlite"), garbage);
        qputenv("STRATA_HISTORY", damaged.toLocal8Bit());
        const QString runDir = newRunDir();
        const Result r = run({writeExperiment(tinyExperiment(1)), runDir, kEngine});
        qputenv("STRATA_HISTORY", historyPath().toLocal8Bit());
        QVERIFY2(r.status == 0, qPrintable(r.text()));
        QVERIFY2(r.text().startsWith("strata: warning: this run is not recorded in the run history: The run history " +
                                     damaged + " is damaged"),
                 qPrintable(r.text()));
        QCOMPARE(r.lines().last(), "Run directory: " + runDir);
        QCOMPARE(QFile(damaged).size(), qint64(garbage.size()));
        QFile f(damaged);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), garbage);
    }

    void progressBarOnATerminalEndsWithTheOutcome()
    {
        // The bar is drawn on a terminal only; a machine without pseudo-terminals (a chroot
        // without /dev/pts) cannot give this test one.
        int master = -1, slave = -1;
        if (::openpty(&master, &slave, nullptr, nullptr, nullptr) != 0)
            QSKIP(qPrintable(QStringLiteral("no pseudo-terminal to draw on (openpty: %1)").arg(std::strerror(errno))));
        ::close(master);
        ::close(slave);
        // Long enough (about 1.5 s here, 100 us a step) for the 200 ms progress timer to draw
        // while it runs: a wider MLP, 6,000 examples, 375 steps an epoch, 40 epochs.
        Json e = tinyExperiment(40);
        e["model"]["input_shape"] = {64};
        e["model"]["layers"][0]["units"] = 512;
        e["data"]["source"]["features"] = 64;
        e["data"]["source"]["samples"] = 6000;
        e["data"]["validation"] = "none";
        const int total = 40 * 375;
        const QString runDir = newRunDir();
        const Result r = run({writeExperiment(e), runDir, kEngine}, true);
        QVERIFY2(r.status == 0, qPrintable(r.text()));
        const QStringList lines = r.lines();
        QVERIFY(lines.size() >= 3);
        QVERIFY2(lines[lines.size() - 2].startsWith("worker:0 completed: test loss "), qPrintable(r.text()));
        QCOMPARE(lines.last(), "Run directory: " + runDir);
        // Before the outcome: the bar redrawn in place, its last state complete.
        const QString bars = lines[lines.size() - 3];
        const QString last = bars.section('\r', -1).trimmed();
        QVERIFY2(last.startsWith(QStringLiteral("%1/%1 [%2] ").arg(total).arg(QString(30, '='))), qPrintable(last));
        QVERIFY2(last.contains(" elapsed") && last.contains(" - loss 0."), qPrintable(last));
        // It was drawn while the run went on, too (not only once at the end).
        const QRegularExpression midway(QStringLiteral("\r(\\d+)/%1 \\[").arg(total));
        bool drawnMidway = false;
        for (auto it = midway.globalMatch(r.text()); it.hasNext();)
            if (it.next().captured(1).toInt() < total)
                drawnMidway = true;
        QVERIFY2(drawnMidway, qPrintable(QStringLiteral("the run took %1 ms:\n").arg(r.ms) + r.text()));
    }

    void unreadableExperimentExitsTwo_data()
    {
        QTest::addColumn<QByteArray>("text"); // null: no file
        QTest::addColumn<QString>("message");
        QTest::newRow("missing file") << QByteArray() << "cannot open";
        QTest::newRow("malformed JSON") << QByteArray("{\n  \"strata\": 1\n  \"name\": \"x\"\n}\n") << ": not valid JSON at line 3, column 8"; // where the parser stopped: after the unexpected "name"
        QTest::newRow("not an object") << QByteArray("[]") << "not an experiment";
    }

    void unreadableExperimentExitsTwo()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, message);
        const QString file = text.isNull() ? m_dir.filePath("no-such.strata.json")
                                           : writeFile(m_dir.filePath("corrupt.strata.json"), text);
        const QString runDir = newRunDir();
        const Result r = run({file, runDir, kEngine});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.text().startsWith("strata: " + file), qPrintable(r.text()));
        QVERIFY2(r.text().contains(message), qPrintable(r.text()));
        QVERIFY(!QFileInfo::exists(runDir));
    }

    void invalidExperimentExitsTwo()
    {
        Json e = tinyExperiment();
        e["training"]["optimizer"]["learning_rate"] = -0.5;
        e["model"]["layers"][0]["unit"] = 4;
        const QString runDir = newRunDir();
        const QString file = writeExperiment(e);
        const Result r = run({file, runDir, kEngine});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.text().startsWith("strata: " + file + ": The experiment has 2 problem(s):\n"), qPrintable(r.text()));
        QVERIFY2(r.text().contains("training.optimizer.learning_rate: must be greater than 0"), qPrintable(r.text()));
        QVERIFY2(r.text().contains("model.layers[0].unit: unknown field"), qPrintable(r.text()));
        QVERIFY(!QFileInfo::exists(runDir));
    }

    void deviceMissingOnThisHostExitsTwo()
    {
        // The engine reports the host's devices; a CPU device far beyond them is refused
        // before anything starts.
        Json e = tinyExperiment();
        e["strategy"]["device"] = "cpu:4096";
        const QString runDir = newRunDir();
        const QString file = writeExperiment(e);
        const Result r = run({file, runDir, kEngine});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.text().startsWith("strata: " + file + ": "), qPrintable(r.text()));
        QVERIFY2(r.text().contains("strategy.device: cpu:4096 does not exist on this host"), qPrintable(r.text()));
        QVERIFY(!QFileInfo::exists(runDir));
    }

    void engineFailureExitsOne()
    {
        // The document validates, but its data cannot be read: the engine fails.
        QString missing;
        const Json e = unreadableDataExperiment(m_dir, &missing);
        const QString runDir = newRunDir();
        const Result r = run({writeExperiment(e), runDir, kEngine});
        QCOMPARE(r.status, 1);
        const QStringList lines = r.lines();
        QVERIFY(lines.size() >= 2);
        QCOMPARE(lines.last(), "Run directory: " + runDir);
        QVERIFY2(r.text().contains("worker:0 failed: "), qPrintable(r.text()));
        QVERIFY2(r.text().contains(missing), qPrintable(r.text()));
        // The engine's own account is in the run directory too.
        const QList<Json> events = engineEvents(runDir + "/events-worker-0.jsonl");
        QVERIFY(!events.isEmpty());
        QCOMPARE(events.back()["type"].get<std::string>(), std::string("error"));
    }

    void runDirOfAnotherExperimentIsRefusedUntilChosen()
    {
        // `strata run EXP --run-dir DIR` into an earlier run's directory: the same experiment
        // with more epochs resumes it; another is refused, saying what differs and how to
        // choose; --fresh and --weights-only then go through `start` to the engine.
        const QString runDir = newRunDir();
        QCOMPARE(run({writeExperiment(tinyExperiment(1)), runDir, kEngine}).status, 0);
        const Result longer = run({writeExperiment(tinyExperiment(2)), runDir, kEngine});
        QVERIFY2(longer.status == 0, qPrintable(longer.text()));
        QVERIFY2(!longer.text().contains("Epoch 1 ") && longer.text().contains("Epoch 2 "), qPrintable(longer.text()));
        Json start;
        for (const Json& e : engineEvents(runDir + "/events-worker-0.jsonl"))
            if (e["type"] == "start")
                start = e;
        QCOMPARE(start["resumed_from_step"].get<int>(), 38);

        Json other = tinyExperiment(2);
        other["seed"] = 99;
        const QString file = writeExperiment(other);
        const Result refused = run({file, runDir, kEngine});
        QCOMPARE(refused.status, 1);
        for (const char* text : {"worker:0 failed: cannot resume from the checkpoint at step 76", "seed: ",
                                 " (checkpoint) vs 99 (experiment)", "--fresh", "--weights-only"})
            QVERIFY2(refused.text().contains(text), qPrintable(refused.text()));
        QCOMPARE(QDir(runDir).entryList({"set-aside-*"}, QDir::Dirs).size(), 0);

        const Result weights = run({file, runDir, kEngine, ResumeChoice::WeightsOnly});
        QVERIFY2(weights.status == 0, qPrintable(weights.text()));
        QCOMPARE(QDir(runDir).entryList({"set-aside-*"}, QDir::Dirs).size(), 1);
        const Result fresh = run({writeExperiment(tinyExperiment(1)), runDir, kEngine, ResumeChoice::Fresh});
        QVERIFY2(fresh.status == 0, qPrintable(fresh.text()));
        QCOMPARE(QDir(runDir).entryList({"set-aside-*"}, QDir::Dirs).size(), 2);
    }

    void engineMissingExitsOne()
    {
        const QString engine = m_dir.filePath("no-such-engine");
        const Result r = run({writeExperiment(tinyExperiment()), newRunDir(), engine});
        QCOMPARE(r.status, 1);
        QVERIFY2(r.text().startsWith("strata: "), qPrintable(r.text()));
        QVERIFY2(r.text().contains(engine), qPrintable(r.text()));
    }

    void sigintStopsTheRunCleanly()
    {
        const QString runDir = newRunDir();
        // Once the engine reports a step, the user presses Ctrl-C.
        QTimer poll;
        bool sent = false;
        connect(&poll, &QTimer::timeout, this, [&] {
            for (const Json& e : readJsonLines(runDir + "/events-worker-0.jsonl"))
                if (!sent && e.value("type", std::string()) == "step") {
                    sent = true;
                    ::raise(SIGINT);
                }
        });
        poll.start(20);
        const Result r = run({writeExperiment(endlessExperiment()), runDir, kEngine});
        poll.stop();
        QVERIFY(sent);
        QVERIFY2(r.status == 0, qPrintable(r.text()));
        QVERIFY2(r.text().contains("strata: stopping (the engine saves a checkpoint)..."), qPrintable(r.text()));
        const QList<Json> events = engineEvents(runDir + "/events-worker-0.jsonl");
        QVERIFY(!events.isEmpty());
        const Json& done = events.back();
        QCOMPARE(done["status"].get<std::string>(), std::string("stopped"));
        const QStringList lines = r.lines();
        QCOMPARE(lines[lines.size() - 2],
                 QStringLiteral("worker:0 stopped at step %1 (checkpoint saved)").arg(done["steps"].get<int64_t>()));
        QVERIFY(!QDir(runDir + "/checkpoints").entryList({"ckpt-*.strata"}, QDir::Files).isEmpty());
        const std::optional<RunRecord> recorded = lastRecorded();
        QVERIFY(recorded);
        QCOMPARE(recorded->runDir, runDir);
        QCOMPARE(recorded->status, RunStatus::Stopped);
        QCOMPARE(recorded->steps, done["steps"].get<qint64>());
    }

    void signalHandlingIsRestoredAfterwards()
    {
        // runHeadless handles SIGINT and SIGTERM only while it runs (the runs above, the
        // stopped one included, have all returned), and leaves no descriptor behind.
        struct sigaction now = {};
        ::sigaction(SIGINT, nullptr, &now);
        QVERIFY(now.sa_handler == m_sigint.sa_handler);
        ::sigaction(SIGTERM, nullptr, &now);
        QVERIFY(now.sa_handler == m_sigterm.sa_handler);

        const auto openFds = [] {
            return QDir("/proc/self/fd").entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System).size();
        };
        const auto before = openFds();
        const Result r = run({writeExperiment(tinyExperiment(1)), newRunDir(), kEngine});
        QVERIFY2(r.status == 0, qPrintable(r.text()));
        QCOMPARE(openFds(), before);
        ::sigaction(SIGINT, nullptr, &now);
        QVERIFY(now.sa_handler == m_sigint.sa_handler);
    }
};

QTEST_GUILESS_MAIN(TestHeadlessRun)
#include "tst_headless_run.moc"
