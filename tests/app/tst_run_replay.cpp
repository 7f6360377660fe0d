// Rebuilding a run from its directory (loadRun) against what the live store held: real
// engine runs through RunController (OneDevice and Mirrored on 2 logical CPU devices,
// completed and stopped; killed; stopped and resumed into the same directory), stand-in
// engines (one that reports an error, one that dies before any event, one that cannot
// start, one killed mid-line) and two tasks' files interleaved by time. Every task, state,
// exit, error, series point, epoch, checkpoint, placement, `done` and log entry must be
// equal. And the bad inputs: no such directory, a directory that is not a run, a damaged
// tasks.json; and `strata compare` over real runs.

#include "../event_deadline.h"
#include "app_test_util.h"
#include "store_compare.h"

#include "app/compare/run_comparison.h"
#include "app/experiment/experiment_document.h"
#include "app/history/run_history.h"
#include "app/launch/run_controller.h"
#include "app/metrics/lost_tasks.h"
#include "app/rundir/run_replay.h"
#include "app/rundir/task_ends.h"

#include <QSignalSpy>
#include <QtTest>

#include <csignal>

using namespace strata::app;
using namespace apptest;

namespace {

const QString kEngine = QStringLiteral(STRATA_ENGINE_PATH);
constexpr int kRunTimeoutMs = testing::kEventDeadlineMs;

Json mirroredExperiment()
{
    Json e = tinyExperiment(2);
    e["name"] = "tiny-mirrored";
    e["strategy"] = {{"type", "Mirrored"}, {"logical_cpu_devices", 2}};
    return e;
}

} // namespace

class TestRunReplay : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_runs = 0;

    QString newRunDir() { return m_dir.filePath(QStringLiteral("run-%1").arg(++m_runs)); }

    // Launches `experiment` with `engine` through a RunController into `runDir`; `during` runs
    // once it has started (to stop or kill it); returns when it has finished.
    void runToEnd(RunController& run, const Json& experiment, const QString& engine, const QString& runDir,
                  const std::function<void(RunController&)>& during = {})
    {
        ExperimentDocument doc;
        doc.replace(experiment, QString::fromStdString(experiment["name"].get<std::string>()));
        QSignalSpy finished(&run, &RunController::finished);
        QString error;
        QVERIFY2(run.launch(doc, engine, runDir, &error), qPrintable(error));
        if (during)
            during(run);
        QVERIFY(finished.wait(kRunTimeoutMs));
        QVERIFY(QFileInfo::exists(taskEndsPath(runDir)));
    }

    // Rebuilds `runDir` and checks it against the live store.
    void replayEqualsLive(const RunController& run, const QString& runDir, Order order = Order::Exact)
    {
        MetricsStore replayed;
        QString error;
        QVERIFY2(loadRun(runDir, replayed, &error), qPrintable(error));
        QVERIFY(error.isEmpty());
        compareStores(run.store(), replayed, order);
    }

    // The same for a run whose `killed` task got SIGKILL. The engine writes each event to its
    // file, then to its stdout (event_sink.cpp): killed between the two, its file holds one
    // event more than the launcher read, and never one less. That event is checked to be the
    // killed task's last line; the rest must equal the live store.
    void replayEqualsLiveAfterKill(const RunController& run, const QString& runDir, const QString& killed,
                                   Order order = Order::Exact)
    {
        MetricsStore replayed;
        QString error;
        QVERIFY2(loadRun(runDir, replayed, &error), qPrintable(error));
        const int64_t extra = replayed.eventCount() - run.store().eventCount();
        QVERIFY2(extra == 0 || extra == 1, qPrintable(QString::number(extra)));
        if (extra == 0) {
            compareStores(run.store(), replayed, order);
            return;
        }
        const QString trimmed = runDir + "-trimmed";
        QVERIFY(QDir().mkpath(trimmed));
        for (const QFileInfo& f : QDir(runDir).entryInfoList(QDir::Files))
            QVERIFY(QFile::copy(f.filePath(), trimmed + "/" + f.fileName()));
        const QString events = trimmed + "/events-" + QString(killed).replace(':', '-') + ".jsonl";
        QFile file(events);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QByteArray lines = file.readAll();
        file.close();
        QVERIFY(lines.endsWith('\n'));
        const qsizetype cut = lines.lastIndexOf('\n', lines.size() - 2) + 1;
        const Json last = Json::parse(lines.mid(cut).toStdString());
        QCOMPARE(QString::fromStdString(last["task"].get<std::string>()), killed);
        lines.truncate(cut);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(file.write(lines), lines.size());
        file.close();
        MetricsStore rest;
        QVERIFY2(loadRun(trimmed, rest, &error), qPrintable(error));
        compareStores(run.store(), rest, order);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFileInfo(kEngine).isExecutable(), STRATA_ENGINE_PATH);
    }

    void completedRun_data()
    {
        QTest::addColumn<bool>("mirrored");
        QTest::newRow("OneDevice") << false;
        QTest::newRow("Mirrored, 2 logical CPU devices") << true;
    }

    void completedRun()
    {
        QFETCH(bool, mirrored);
        const QString runDir = newRunDir();
        RunController run;
        runToEnd(run, mirrored ? mirroredExperiment() : tinyExperiment(2), kEngine, runDir);
        QCOMPARE(run.outcome(), RunOutcome::Completed);
        replayEqualsLive(run, runDir);
        // Rebuilt, every step is there too, from step 1, once (76 steps, 38 of the global batch
        // of two replicas).
        MetricsStore replayed;
        QString replayError;
        QVERIFY2(loadRun(runDir, replayed, &replayError), qPrintable(replayError));
        QVERIFY(withTask(replayed, [&](const TaskData& td) {
            QCOMPARE(td.totalSteps, int64_t(mirrored ? 38 : 76));
            for (const Series* s : {&td.loss, &td.metrics.at("accuracy"), &td.replicas.back().loss}) {
                QCOMPARE(s->size(), td.totalSteps);
                for (int64_t i = 0; i < s->size(); ++i)
                    QCOMPARE(s->x(i), double(i + 1));
            }
        }));
        // What the comparison depends on is there: replicas, placement, test metrics.
        QVERIFY(withTask(run.store(), [&](const TaskData& td) {
            QCOMPARE(int(td.replicas.size()), mirrored ? 2 : 1);
            QCOMPARE(td.replicas.back().device, mirrored ? QString("cpu:1") : QString("cpu:0"));
            QVERIFY(td.placement.is_object());
            QVERIFY(td.done["test"].contains("accuracy"));
            QVERIFY(td.exited);
        }));
        std::vector<TaskEnd> ends;
        QString error;
        QVERIFY2(readTaskEnds(runDir, ends, &error), qPrintable(error));
        QCOMPARE(int(ends.size()), 1);
        QCOMPARE(ends[0].task, kTask);
        QCOMPARE(ends[0].exitCode, 0);
        QVERIFY(!ends[0].crashed);
        QVERIFY(ends[0].failedToStart.isEmpty());
        QVERIFY(ends[0].time > 0);
    }

    void stoppedRun_data()
    {
        QTest::addColumn<bool>("mirrored");
        QTest::newRow("OneDevice") << false;
        QTest::newRow("Mirrored, 2 logical CPU devices") << true;
    }

    void stoppedRun()
    {
        // Stopped once every device has reported its use (about once a second).
        QFETCH(bool, mirrored);
        Json experiment = endlessExperiment();
        if (mirrored)
            experiment["strategy"] = mirroredExperiment()["strategy"];
        const QString runDir = newRunDir();
        RunController run;
        runToEnd(run, experiment, kEngine, runDir, [&](RunController& r) {
            const auto devicesReported = [&] {
                int64_t points = 0;
                withTask(r.store(), [&](const TaskData& td) {
                    if (td.devices.size() == (mirrored ? 2u : 1u))
                        points = td.devices.back().utilization.size();
                });
                return points;
            };
            QTRY_VERIFY_WITH_TIMEOUT(devicesReported() >= 2, kRunTimeoutMs);
            r.stop();
        });
        QCOMPARE(run.outcome(), RunOutcome::Stopped);
        replayEqualsLive(run, runDir);
    }

    void killedRun()
    {
        // The engine killed at once: its events file still holds everything it sent (and at
        // most one event more, the one it was sending).
        const QString runDir = newRunDir();
        RunController run;
        runToEnd(run, endlessExperiment(), kEngine, runDir, [](RunController& r) {
            QTRY_VERIFY_WITH_TIMEOUT(lossPointsOf(r.store()) >= 3, kRunTimeoutMs);
            r.killTask(kTask);
        });
        QCOMPARE(run.outcome(), RunOutcome::Failed);
        QVERIFY2(run.summary().contains("killed by signal 9"), qPrintable(run.summary()));
        replayEqualsLiveAfterKill(run, runDir, kTask);
    }

    void endsFromTheExitLinesWithoutTasksJson()
    {
        // The Strata that launched it died before writing tasks.json: how each task ended
        // comes from its supervisor's `exit` line, as it did live.
        for (const bool kill : {false, true}) {
            const QString runDir = newRunDir();
            RunController run;
            runToEnd(run, kill ? endlessExperiment() : tinyExperiment(2), kEngine, runDir, [&](RunController& r) {
                if (kill) {
                    QTRY_VERIFY_WITH_TIMEOUT(lossPointsOf(r.store()) >= 3, kRunTimeoutMs);
                    r.killTask(kTask);
                }
            });
            QVERIFY(QFile::remove(taskEndsPath(runDir)));
            MetricsStore replayed;
            std::map<QString, ReplayPosition> positions;
            QString error;
            QVERIFY2(loadRun(runDir, replayed, &error, &positions), qPrintable(error));
            QVERIFY(positions[kTask].end);
            QCOMPARE(positions[kTask].end->crashed, kill);
            QCOMPARE(positions[kTask].end->exitCode, kill ? int(SIGKILL) : 0);
            QCOMPARE(positions[kTask].offset, QFileInfo(runDir + "/events-worker-0.jsonl").size());
            QVERIFY(withTask(replayed, [&](const TaskData& td) {
                QVERIFY(td.exited);
                QCOMPARE(td.state, kill ? TaskState::Failed : TaskState::Completed);
            }));
            compareStores(run.store(), replayed, Order::Exact);
        }
    }

    void killedWorkerOfAMultiWorkerJob()
    {
        // Two workers, worker:1 killed: both tasks' files, and the lost worker shown as live
        // (two processes' streams: in time order, see Order::ByTime).
        const QString runDir = newRunDir();
        RunController run;
        runToEnd(run, multiWorker(endlessExperiment(), 2), kEngine, runDir, [](RunController& r) {
            QTRY_VERIFY_WITH_TIMEOUT(lossPointsOf(r.store()) >= 3, kRunTimeoutMs);
            r.killTask("worker:1");
        });
        QCOMPARE(run.outcome(), RunOutcome::Failed);
        replayEqualsLiveAfterKill(run, runDir, "worker:1", Order::ByTime);
        MetricsStore replayed;
        QString error;
        QVERIFY2(loadRun(runDir, replayed, &error), qPrintable(error));
        const QList<LostTask> lost = lostTasks(replayed);
        QCOMPARE(lost.size(), 1);
        QCOMPARE(lost[0].task, QString("worker:1"));
        QVERIFY2(lost[0].reason.startsWith("killed by signal 9; named lost by worker:0"), qPrintable(lost[0].reason));
    }

    void resumedRunShowsItsLastSession()
    {
        // Stopped, then run again in the same directory: the engine resumes and appends to its
        // events file; the dashboard showed the second session only, and so does the replay.
        const QString runDir = newRunDir();
        RunController run;
        const auto stopSoon = [](RunController& r) {
            QTRY_VERIFY_WITH_TIMEOUT(stepOf(r.store()) > 0, kRunTimeoutMs);
            r.stop();
        };
        runToEnd(run, endlessExperiment(), kEngine, runDir, stopSoon);
        runToEnd(run, endlessExperiment(), kEngine, runDir, stopSoon);
        QVERIFY(withTask(run.store(), [](const TaskData& td) { QVERIFY(td.start["resumed_from_step"].is_number()); }));
        int hellos = 0;
        for (const Json& e : readJsonLines(runDir + "/events-worker-0.jsonl"))
            hellos += e["type"] == "hello";
        QCOMPARE(hellos, 2);
        replayEqualsLive(run, runDir);
    }

    void engineThatReportsAnError()
    {
        // A stand-in that writes its events like the engine (run directory and stdout), an
        // error among them, then a message on stderr and status 1.
        QTemporaryDir scripts;
        const QString engine = writeScript(
            scripts, "engine",
            "events=\"$3/events-worker-0.jsonl\"\n"
            "emit() { printf '%s\\n' \"$1\" >> \"$events\"; printf '%s\\n' \"$1\"; }\n"
            "emit '{\"v\":1,\"type\":\"hello\",\"t\":100.5,\"task\":\"worker:0\",\"version\":\"0.1.0\",\"devices\":[{\"name\":\"cpu:0\"}]}'\n"
            "emit '{\"v\":1,\"type\":\"start\",\"t\":101,\"task\":\"worker:0\",\"strategy\":\"OneDevice\",\"replicas\":1,\"total_steps\":100}'\n"
            "emit '{\"v\":1,\"type\":\"step\",\"t\":102,\"task\":\"worker:0\",\"step\":10,\"loss\":0.9,\"replicas\":[{\"replica\":0,\"device\":\"cpu:0\",\"loss\":0.9,\"samples\":320}],\"time_ms\":{\"step\":2,\"compute\":1.5,\"comm\":0,\"input\":0.5},\"samples_per_sec\":16000}'\n"
            "emit '{\"v\":1,\"type\":\"log\",\"t\":102.5,\"task\":\"worker:0\",\"level\":\"warning\",\"message\":\"slow input\"}'\n"
            "emit '{\"v\":1,\"type\":\"error\",\"t\":103,\"task\":\"worker:0\",\"kind\":\"numeric\",\"message\":\"loss became NaN at step 11\",\"fatal\":true}'\n"
            "echo 'strata-engine: loss became NaN' >&2\n"
            "exit 1\n");
        const QString runDir = newRunDir();
        RunController run;
        runToEnd(run, tinyExperiment(), engine, runDir);
        QCOMPARE(run.outcome(), RunOutcome::Failed);
        QVERIFY(withTask(run.store(), [](const TaskData& td) {
            QCOMPARE(td.error, QString("loss became NaN at step 11"));
            QCOMPARE(td.exitCode, 1);
        }));
        replayEqualsLive(run, runDir);
    }

    void engineThatDiesBeforeAnyEvent()
    {
        // No events file at all: tasks.json alone says what happened.
        QTemporaryDir scripts;
        const QString engine =
            writeScript(scripts, "engine", "echo 'strata-engine: cannot load libstrata.so' >&2\nexit 3\n");
        const QString runDir = newRunDir();
        RunController run;
        runToEnd(run, tinyExperiment(), engine, runDir);
        QVERIFY(!QFileInfo::exists(runDir + "/events-worker-0.jsonl"));
        QVERIFY(withTask(run.store(), [](const TaskData& td) {
            QVERIFY2(td.error.contains("exited with status 3"), qPrintable(td.error));
            QVERIFY2(td.error.contains("cannot load libstrata.so"), qPrintable(td.error));
        }));
        replayEqualsLive(run, runDir);
    }

    void engineThatCannotStart()
    {
        // Executable, but its interpreter does not exist: exec fails, QProcess cannot start it.
        QTemporaryDir scripts;
        const QString engine = writeFile(scripts.filePath("engine"), "#!/no/such/interpreter\n");
        QFile::setPermissions(engine, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        const QString runDir = newRunDir();
        RunController run;
        runToEnd(run, tinyExperiment(), engine, runDir);
        QCOMPARE(run.outcome(), RunOutcome::Failed);
        std::vector<TaskEnd> ends;
        QString error;
        QVERIFY2(readTaskEnds(runDir, ends, &error), qPrintable(error));
        QCOMPARE(int(ends.size()), 1);
        QVERIFY2(ends[0].failedToStart.contains("could not start"), qPrintable(ends[0].failedToStart));
        replayEqualsLive(run, runDir);
    }

    void engineKilledMidLine()
    {
        // Its last event torn in the file and on stdout alike: warned about, the rest kept.
        QTemporaryDir scripts;
        const QString engine = writeScript(
            scripts, "engine",
            "events=\"$3/events-worker-0.jsonl\"\n"
            "line='{\"v\":1,\"type\":\"hello\",\"t\":7,\"task\":\"worker:0\"}'\n"
            "printf '%s\\n' \"$line\" >> \"$events\"; printf '%s\\n' \"$line\"\n"
            "torn='{\"v\":1,\"type\":\"step\",\"t\":8,\"task\":\"worker:0\",\"ste'\n"
            "printf '%s' \"$torn\" >> \"$events\"; printf '%s' \"$torn\"\n"
            "kill -9 $$\n");
        const QString runDir = newRunDir();
        RunController run;
        runToEnd(run, tinyExperiment(), engine, runDir);
        bool warned = false;
        for (const LogEntry& e : logOf(run.store()))
            warned = warned || (e.level == "warning" && e.message.contains("not a JSON event"));
        QVERIFY(warned);
        QVERIFY(withTask(run.store(), [](const TaskData& td) {
            QVERIFY(td.hello.is_object());
            QVERIFY(td.crashed);
        }));
        replayEqualsLive(run, runDir);
    }

    void severalTasksInterleavedByTime()
    {
        // Two tasks' files (written as the engine names them) and their ends: the rebuilt store
        // takes them in the order they happened, as the live one took them on arrival.
        const QString runDir = newRunDir();
        QVERIFY(QDir().mkpath(runDir));
        const auto line = [](const char* task, const char* type, double t) {
            return Json{{"v", 1}, {"type", type}, {"t", t}, {"task", task}, {"level", "info"}, {"message", type}};
        };
        const std::vector<std::pair<QString, Json>> happened{
            {"chief:0", line("chief:0", "hello", 1)}, {"worker:1", line("worker:1", "hello", 2)},
            {"chief:0", line("chief:0", "log", 3)},   {"worker:1", line("worker:1", "log", 4)},
            {"worker:1", line("worker:1", "log", 5)}, {"chief:0", line("chief:0", "log", 7)}};
        QByteArray chief, worker;
        MetricsStore live;
        for (const auto& [task, event] : happened) {
            (task == "chief:0" ? chief : worker) += QByteArray::fromStdString(event.dump()) + '\n';
            live.ingest(task, event);
            if (event["t"] == 5.0)
                live.taskEnded("worker:1", 1, false, "worker:1 gave up", 6);
        }
        live.taskEnded("chief:0", 0, false, QString(), 8);
        writeFile(runDir + "/events-chief-0.jsonl", chief);
        writeFile(runDir + "/events-worker-1.jsonl", worker);
        QString error;
        QVERIFY2(writeTaskEnds(runDir, {{"chief:0", 0, false, "", "", 8}, {"worker:1", 1, false, "worker:1 gave up", "", 6}},
                               &error),
                 qPrintable(error));
        MetricsStore replayed;
        QVERIFY2(loadRun(runDir, replayed, &error), qPrintable(error));
        compareStores(live, replayed);
    }

    void largeFilesReadInChunks()
    {
        // Files of several MiB, read a chunk at a time (lines across chunk boundaries): the chief
        // resumed once, its last session starting past the first chunk; lines without a time,
        // a blank one, one that is not JSON, CRLF endings; the worker reporting every fifth
        // step, so the chief's events between two of the worker's go in as one batch; `log`
        // events of both, whose order in the log is the order they were taken in. The rebuilt
        // store equals one fed the last session's events one at a time, as they happened.
        const QString runDir = newRunDir();
        QVERIFY(QDir().mkpath(runDir));
        const auto event = [](const char* task, const char* type, int64_t t, int64_t step, bool timed = true) {
            QByteArray line = QStringLiteral(R"({"v":1,"type":"%1",%2"task":"%3","step":%4,"loss":%5,)"
                                             R"("replicas":[{"replica":0,"device":"cpu:0","loss":%5,"samples":32}],)"
                                             R"("metrics":{"accuracy":0.5},"time_ms":{"step":1,"compute":0.5,"comm":0.25,"input":0.25},)"
                                             R"("samples_per_sec":1000})")
                                  .arg(QLatin1String(type), timed ? QStringLiteral("\"t\":%1,").arg(t) : QString(),
                                       QLatin1String(task))
                                  .arg(step)
                                  .arg(1.0 / double(step + 1))
                                  .toUtf8();
            return line;
        };
        QByteArray chief, worker;
        for (int64_t i = 0; i < 6000; ++i) // the first session, not shown
            chief += event("chief:0", i ? "step" : "hello", 1000000 + i, i) + '\n';
        struct Happened {
            QString task;
            QByteArray line;
        };
        std::vector<Happened> happened;
        for (int64_t i = 0; i < 10000; ++i) {
            // The chief at even times, the worker at odd ones: never at the same time.
            const int64_t t = 2000000 + 2 * i;
            QByteArray line = event("chief:0", i ? (i % 97 ? "step" : "log") : "hello", t, i, i % 499 != 1);
            chief += line + (i % 7 == 3 ? "\r\n" : "\n");
            happened.push_back({"chief:0", line});
            if (i == 5000) {
                chief += "\nnot an event\n";
                happened.push_back({"chief:0", "not an event"});
            }
            if (i % 5 == 0) {
                line = event("worker:1", i ? (i % 50 ? "step" : "log") : "hello", t + 1, i);
                worker += line + '\n';
                happened.push_back({"worker:1", line});
            }
        }
        MetricsStore live;
        for (const Happened& h : happened)
            live.ingestLines(h.task, h.line + '\n');
        live.taskEnded("chief:0", 0, false, QString(), 3000000);
        live.taskEnded("worker:1", 0, false, QString(), 3000001);
        QVERIFY(chief.size() > 3 << 20);
        writeFile(runDir + "/events-chief-0.jsonl", chief);
        writeFile(runDir + "/events-worker-1.jsonl", worker);
        QString error;
        QVERIFY2(writeTaskEnds(runDir, {{"chief:0", 0, false, "", "", 3000000}, {"worker:1", 0, false, "", "", 3000001}},
                               &error),
                 qPrintable(error));
        MetricsStore replayed;
        QVERIFY2(loadRun(runDir, replayed, &error), qPrintable(error));
        compareStores(live, replayed);
        QVERIFY(withTask(replayed, [](const TaskData& td) { QCOMPARE(td.loss.size(), int64_t(9999 - 10000 / 97)); }, "chief:0"));
    }

    void badDirectories()
    {
        MetricsStore store;
        store.ingest(kTask, Json{{"type", "hello"}, {"t", 1.0}});
        QString error;
        const QString missing = m_dir.filePath("no-such-run");
        QVERIFY(!loadRun(missing, store, &error));
        QVERIFY2(error.contains(missing) && error.contains("does not exist"), qPrintable(error));

        const QString empty = m_dir.filePath("not-a-run");
        QVERIFY(QDir().mkpath(empty));
        writeFile(empty + "/notes.txt", "hello");
        QVERIFY(!loadRun(empty, store, &error));
        QVERIFY2(error.contains(empty) && error.contains("no event files"), qPrintable(error));

        const QString damaged = m_dir.filePath("damaged");
        QVERIFY(QDir().mkpath(damaged));
        writeFile(damaged + "/events-worker-0.jsonl", "{\"v\":1,\"type\":\"hello\",\"t\":1,\"task\":\"worker:0\"}\n");
        writeFile(damaged + "/tasks.json", "{\"tasks\": [{\"task\": \"worker:0\"");
        QVERIFY(!loadRun(damaged, store, &error));
        QVERIFY2(error.contains(taskEndsPath(damaged)) && error.contains("not JSON"), qPrintable(error));
        writeFile(damaged + "/tasks.json", "{\"tasks\": [{\"task\": \"worker:0\", \"exit_code\": \"zero\"}]}");
        QVERIFY(!loadRun(damaged, store, &error));
        QVERIFY2(error.contains(taskEndsPath(damaged)), qPrintable(error));

        // A failed load leaves the store as it was.
        QCOMPARE(store.eventCount(), int64_t(1));

        // Without tasks.json (a run of strata-engine alone): the events, with no exit known.
        QFile::remove(damaged + "/tasks.json");
        QVERIFY2(loadRun(damaged, store, &error), qPrintable(error));
        QVERIFY(withTask(store, [](const TaskData& td) {
            QVERIFY(td.hello.is_object());
            QVERIFY(!td.exited);
        }));

        // `strata compare` names the directory it cannot read.
        QString report;
        QVERIFY(!compareRunDirs({damaged, missing}, {}, ReportFormat::Text, &report, &error));
        QVERIFY2(error.contains(damaged) && error.contains("no experiment document"), qPrintable(error));
        QVERIFY(report.isEmpty());
    }

    void compareRealRuns()
    {
        // `strata compare` over a OneDevice and a Mirrored run of the same experiment.
        const QString one = newRunDir(), mirrored = newRunDir();
        RunController first, second;
        runToEnd(first, tinyExperiment(2), kEngine, one);
        runToEnd(second, mirroredExperiment(), kEngine, mirrored);
        QString report, error;
        CompareOptions options;
        options.targetLoss = 100.0; // reached at the first window
        QVERIFY2(compareRunDirs({mirrored, one}, options, ReportFormat::Text, &report, &error), qPrintable(error));
        const QString a = QFileInfo(mirrored).fileName(), b = QFileInfo(one).fileName();
        // The OneDevice run is the baseline, though listed second.
        QVERIFY2(report.startsWith(QStringLiteral("Scaling against %1 (OneDevice, 1 replica(s))").arg(b)), qPrintable(report));
        QVERIFY2(report.contains(QRegularExpression(QStringLiteral("\nrun +%1 +%2\n").arg(a, b))), qPrintable(report));
        QVERIFY2(report.contains(QRegularExpression("\nstrategy +Mirrored +OneDevice\n")), qPrintable(report));
        QVERIFY2(report.contains(QRegularExpression("\nreplicas +2 +1\n")), qPrintable(report));
        QVERIFY2(report.contains(QRegularExpression("\nspeedup +\\d+\\.\\d\\d +1\\.00\n")), qPrintable(report));
        QVERIFY2(report.contains(QRegularExpression("\ntime to loss <= 100 \\(s\\) +\\d+\\.\\d\\d +\\d+\\.\\d\\d\n")),
                 qPrintable(report));
        QVERIFY2(report.contains("  strategy.type: Mirrored | OneDevice\n"), qPrintable(report));
        QVERIFY2(report.contains("  strategy.logical_cpu_devices: 2 | (absent)\n"), qPrintable(report));
        QVERIFY2(report.contains("(the comparison may be unfair):\n  None: model, data, training and seed are the same.\n"),
                 qPrintable(report));
    }

    void compareTakesHistoryIdsAndDirectories()
    {
        // `strata compare 1 DIR`: ids are the history's (their label "#id name"), the rest are
        // directories, even one named like a number.
        QTemporaryDir dir;
        RunHistory history;
        QString error;
        QVERIFY2(history.open(dir.filePath("history.sqlite"), &error), qPrintable(error));
        RunRecord record;
        record.name = "fashion-mnist-mlp";
        record.label = "best so far";
        record.runDir = dir.filePath("runs/one");
        record.startedAt = 1763800000;
        QVERIFY2(history.insertRun(record, &error), qPrintable(error));
        const QString numbered = dir.filePath("7");
        QVERIFY(QDir().mkpath(numbered));
        QStringList dirs, labels;
        QVERIFY2(resolveRunRefs({QString::number(record.id), "/some/run-dir", numbered}, &dirs, &labels, &error, &history),
                 qPrintable(error));
        QCOMPARE(dirs, (QStringList{record.runDir, "/some/run-dir", numbered}));
        QCOMPARE(labels, (QStringList{QStringLiteral("#%1 best so far").arg(record.id), "run-dir", "7"}));
        dirs.clear();
        labels.clear();
        QVERIFY(!resolveRunRefs({"999"}, &dirs, &labels, &error, &history));
        QVERIFY2(error.contains("999"), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestRunReplay)
#include "tst_run_replay.moc"
