// JobLauncher and RunController against the real strata-engine: a run that completes, a
// run stopped cleanly (SIGTERM: checkpoint, `done` stopped), a task killed mid-run (what it
// sent is kept), and every way a launch goes wrong: the engine missing or not executable, a
// run directory that cannot be made, an engine that dies at once or reports an error, a
// tasks.json that cannot be written. (The run directory's files: tst_run_replay.)
// Shell scripts stand in for broken engines.

#include "app_test_util.h"

#include "app/experiment/experiment_document.h"
#include "app/launch/job_launcher.h"
#include "app/launch/run_controller.h"
#include "app/rundir/task_places.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QUuid>
#include <QtTest>

#include <csignal>

using namespace strata::app;
using namespace apptest;

namespace {

const QString kEngine = QStringLiteral(STRATA_ENGINE_PATH);
constexpr int kRunTimeoutMs = 30000;

const char* const kFashionMnist = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz";

// The default experiment (the Fashion-MNIST MLP) made short: 640 training images in batches
// of 32 (20 steps an epoch), 2 epochs, 200 test images.
Json shortDefaultExperiment()
{
    Json e = ExperimentDocument::defaultExperiment();
    e["data"]["train_limit"] = 640;
    e["data"]["test_limit"] = 200;
    e["training"]["epochs"] = 2;
    e["training"]["threads"] = 1;
    return e;
}

QString stateName(TaskState s)
{
    switch (s) {
    case TaskState::Starting: return "Starting";
    case TaskState::Running: return "Running";
    case TaskState::Completed: return "Completed";
    case TaskState::Stopped: return "Stopped";
    case TaskState::Failed: return "Failed";
    }
    return "?";
}

} // namespace

class TestJobLauncher : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_runs = 0;

    QString newRunDir() { return m_dir.filePath(QStringLiteral("run-%1").arg(++m_runs)); }

    // Runs `experiment` to its end with a fresh launcher; the store holds what it reported.
    void runToEnd(MetricsStore& store, const Json& experiment, const QString& engine, const QString& runDir)
    {
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(experiment, engine, runDir, &error), qPrintable(error));
        QVERIFY(error.isEmpty());
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(finished.count(), 1);
        QVERIFY(!launcher.isRunning());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFileInfo(kEngine).isExecutable(), STRATA_ENGINE_PATH);
    }

    void completedRun_data()
    {
        QTest::addColumn<bool>("fashionMnist");
        QTest::newRow("default Fashion-MNIST MLP, shortened") << true;
        QTest::newRow("synthetic clusters") << false;
    }

    void completedRun()
    {
        QFETCH(bool, fashionMnist);
        if (fashionMnist && !QFile::exists(kFashionMnist))
            QSKIP("Fashion-MNIST is not installed (Debian package dataset-fashion-mnist; scripts/install-deps.sh installs it)");
        const Json experiment = fashionMnist ? shortDefaultExperiment() : tinyExperiment(2);
        const int64_t totalSteps = fashionMnist ? 40 : 2 * 38;
        const QString runDir = newRunDir();

        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(experiment, kEngine, runDir, &error), qPrintable(error));
        QVERIFY(launcher.isRunning());
        QCOMPARE(launcher.runDir(), runDir);
        QCOMPARE(launcher.tasks(), QStringList{kTask});
        QVERIFY(finished.wait(kRunTimeoutMs));
        QVERIFY(!launcher.isRunning());

        QVERIFY(withTask(store, [&](const TaskData& td) {
            QVERIFY2(td.state == TaskState::Completed, qPrintable(stateName(td.state) + ": " + td.error));
            QVERIFY(td.hello.is_object());
            QCOMPARE(td.hello["task"].get<std::string>(), kTask.toStdString());
            QVERIFY(td.start.is_object());
            QCOMPARE(td.start["total_steps"].get<int64_t>(), totalSteps);
            QCOMPARE(td.totalSteps, totalSteps);
            QVERIFY(td.placement.is_object());
            QVERIFY(td.done.is_object());
            QCOMPARE(td.done["status"].get<std::string>(), std::string("completed"));
            QCOMPARE(td.done["steps"].get<int64_t>(), totalSteps);
            QVERIFY(td.done["test"].contains("accuracy"));
            QCOMPARE(td.step, totalSteps);
            // Every step, from the step records: the loss, each replica's, the training
            // accuracy and the step time from step 1 on, one point a step.
            QCOMPARE(td.records.count, totalSteps);
            for (const Series* s : {&td.loss, &td.replicas.at(0).loss, &td.metrics.at("accuracy"), &td.stepMs,
                                    &td.computeMs, &td.inputMs, &td.wallSeconds}) {
                QCOMPARE(s->size(), totalSteps);
                for (int64_t i = 0; i < totalSteps; ++i)
                    QCOMPARE(s->x(i), double(i + 1));
            }
            const QList<Json> records = readJsonLines(QDir(runDir).filePath("steps-worker-0.jsonl"));
            QCOMPARE(records.size(), qsizetype(totalSteps));
            for (int64_t i = 0; i < totalSteps; ++i) {
                QCOMPARE(td.loss.y(i), records[i]["loss"].get<float>());
                QCOMPARE(td.metrics.at("accuracy").y(i), records[i]["metrics"]["accuracy"].get<float>());
            }
            // The windows give samples/s.
            QVERIFY(td.samplesPerSec.size() >= 2);
            QVERIFY(td.samplesPerSec.size() < totalSteps);
            QCOMPARE(int(td.epochs.size()), 2);
            QVERIFY(td.epochs[1].validation.is_object());
            QVERIFY(!td.checkpoints.empty());
            QCOMPARE(td.exitCode, 0);
            QVERIFY(!td.crashed);
            QVERIFY(td.exited);
            QVERIFY(td.error.isEmpty());
        }));
        const Progress p = store.progress();
        QCOMPARE(p.fraction, 1.0);
        QCOMPARE(p.etaSeconds, 0.0);

        // The run directory: the experiment as launched, the engine's copy and event file.
        const QDir dir(runDir);
        QVERIFY(dir.exists("launch.strata.json"));
        QVERIFY(dir.exists("experiment.strata.json"));
        QVERIFY(dir.exists("model.weights"));
        const QList<Json> events = engineEvents(dir.filePath("events-worker-0.jsonl"));
        QVERIFY(!events.isEmpty());
        QCOMPARE(events.front()["type"].get<std::string>(), std::string("hello"));
        QCOMPARE(events.back()["type"].get<std::string>(), std::string("done"));
        // Every line of the events file reached the store: the engine's events and the
        // supervisor's `exit`, which says how the process ended.
        const QList<Json> lines = readJsonLines(dir.filePath("events-worker-0.jsonl"));
        QCOMPARE(lines.back()["type"].get<std::string>(), std::string("exit"));
        QCOMPARE(lines.back()["code"].get<int>(), 0);
        QCOMPARE(store.eventCount(), int64_t(lines.size()));
        // Where the task ran, for following it again and for the dashboard.
        std::vector<TaskPlace> places;
        QString placesError;
        QVERIFY2(readTaskPlaces(runDir, places, &placesError), qPrintable(placesError));
        QCOMPARE(places.size(), size_t(1));
        QCOMPARE(places[0].task, kTask);
        QVERIFY(!places[0].remote);
        QCOMPARE(places[0].runDir, runDir);
        // The experiment file given to the engine is exactly the experiment launched.
        QFile launchFile(dir.filePath("launch.strata.json"));
        QVERIFY(launchFile.open(QIODevice::ReadOnly));
        QCOMPARE(Json::parse(launchFile.readAll().toStdString()), experiment);
        // No warnings: stdout carried only events.
        for (const LogEntry& e : logOf(store))
            QVERIFY2(e.level == "info", qPrintable(e.level + ": " + e.message));
    }

    void stopEndsTheRunCleanlyWithACheckpoint()
    {
        const QString runDir = newRunDir();
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(endlessExperiment(), kEngine, runDir, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(stepOf(store) > 0, kRunTimeoutMs);

        // A second run while this one goes on is refused.
        QVERIFY(!launcher.start(endlessExperiment(), kEngine, newRunDir(), &error));
        QVERIFY2(error.contains("already in progress"), qPrintable(error));

        const int graceMs = 10000;
        QElapsedTimer clock;
        clock.start();
        launcher.stop(graceMs);
        QVERIFY(finished.wait(kRunTimeoutMs));
        QVERIFY2(clock.elapsed() < graceMs, "the engine had to be killed");
        QVERIFY(!launcher.isRunning());

        int64_t stoppedAt = 0;
        QVERIFY(withTask(store, [&](const TaskData& td) {
            QVERIFY2(td.state == TaskState::Stopped, qPrintable(stateName(td.state) + ": " + td.error));
            QCOMPARE(td.done["status"].get<std::string>(), std::string("stopped"));
            stoppedAt = td.done["steps"].get<int64_t>();
            QVERIFY(stoppedAt > 0);
            QCOMPARE(td.step, stoppedAt);
            QVERIFY(!td.crashed);
            QCOMPARE(td.exitCode, 0);
            QVERIFY(!td.checkpoints.empty());
            const Json& last = td.checkpoints.back();
            QCOMPARE(last["step"].get<int64_t>(), stoppedAt);
            const QString path = QString::fromStdString(last["path"].get<std::string>());
            QVERIFY2(QFileInfo(QDir(runDir).absoluteFilePath(path)).isFile() || QFileInfo(path).isFile(), qPrintable(path));
        }));
        const QStringList checkpoints = QDir(runDir + "/checkpoints").entryList({"ckpt-*.strata"}, QDir::Files, QDir::Name);
        QVERIFY(!checkpoints.isEmpty());
        QVERIFY2(checkpoints.last().contains(QString::number(stoppedAt)), qPrintable(checkpoints.last()));
    }

    void stopKillsAnEngineThatIgnoresIt()
    {
        QTemporaryDir scripts;
        // Ignores SIGTERM (the disposition survives exec), says hello, then waits.
        const QString engine = writeScript(scripts, "stubborn",
                                           "trap '' TERM\n"
                                           "echo '{\"v\":1,\"type\":\"hello\",\"t\":1,\"task\":\"worker:0\"}'\n"
                                           "exec sleep 60\n");
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(tinyExperiment(), engine, newRunDir(), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(store.eventCount() == 1, kRunTimeoutMs);
        QElapsedTimer clock;
        clock.start();
        launcher.stop(300);
        QVERIFY(finished.wait(kRunTimeoutMs));
        QVERIFY2(clock.elapsed() >= 250, "killed before the grace period ended");
        QVERIFY(withTask(store, [&](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Failed);
            QVERIFY(td.crashed);
            QCOMPARE(td.exitCode, int(SIGKILL));
            QVERIFY(td.hello.is_object());
        }));
    }

    void killedTaskIsReportedAndKeepsItsData()
    {
        const QString runDir = newRunDir();
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        QString error;
        QVERIFY2(launcher.start(endlessExperiment(), kEngine, runDir, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(lossPointsOf(store) >= 3, kRunTimeoutMs);
        const int64_t pointsBefore = lossPointsOf(store);
        const int64_t stepBefore = stepOf(store);
        const int64_t eventsBefore = store.eventCount();

        launcher.killTask(kTask);
        QVERIFY(finished.wait(kRunTimeoutMs));
        QVERIFY(!launcher.isRunning());
        QVERIFY(withTask(store, [&](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Failed);
            QVERIFY(td.crashed);
            QCOMPARE(td.exitCode, int(SIGKILL));
            QVERIFY(td.exited);
            QVERIFY2(td.error.contains("worker:0 was killed by signal 9"), qPrintable(td.error));
            QVERIFY(td.done.is_null());
            // Nothing received before the kill is lost.
            QVERIFY(td.hello.is_object());
            QVERIFY(td.start.is_object());
            QVERIFY(td.loss.size() >= pointsBefore);
            QVERIFY(td.step >= stepBefore);
            for (int64_t i = 1; i < td.loss.size(); ++i)
                QVERIFY(td.loss.x(i) > td.loss.x(i - 1));
        }));
        QVERIFY(store.eventCount() >= eventsBefore);
        bool logged = false;
        for (const LogEntry& e : logOf(store))
            logged = logged || (e.level == "error" && e.message.contains("killed by signal 9"));
        QVERIFY(logged);
    }

    void missingEngine()
    {
        MetricsStore store;
        JobLauncher launcher(&store);
        QSignalSpy finished(&launcher, &JobLauncher::finished);
        const QString engine = m_dir.filePath("no-such-engine");
        const QString runDir = newRunDir();
        QString error;
        QVERIFY(!launcher.start(tinyExperiment(), engine, runDir, &error));
        QVERIFY2(error.contains(engine), qPrintable(error));
        QVERIFY2(error.contains("not found"), qPrintable(error));
        QVERIFY(!launcher.isRunning());
        QVERIFY(launcher.tasks().isEmpty());
        QCOMPARE(store.eventCount(), int64_t(0));
        QVERIFY(!withTask(store, [](const TaskData&) {}));
        QVERIFY(!QFileInfo::exists(runDir));
        QCOMPARE(finished.count(), 0);
    }

    void engineNotExecutable()
    {
        QTemporaryDir scripts;
        const QString engine = writeFile(scripts.filePath("engine"), "#!/bin/sh\nexit 0\n");
        QFile::setPermissions(engine, QFile::ReadOwner | QFile::WriteOwner);
        MetricsStore store;
        JobLauncher launcher(&store);
        QString error;
        QVERIFY(!launcher.start(tinyExperiment(), engine, newRunDir(), &error));
        QVERIFY2(error.contains(engine), qPrintable(error));
        QVERIFY2(error.contains("not executable"), qPrintable(error));
        QVERIFY(!launcher.isRunning());
    }

    void runDirectoryThatCannotBeCreated()
    {
        // Under a regular file: no one can create it, root included.
        const QString file = writeFile(m_dir.filePath("a-file"), "x");
        const QString runDir = file + "/run";
        MetricsStore store;
        JobLauncher launcher(&store);
        QString error;
        QVERIFY(!launcher.start(tinyExperiment(), kEngine, runDir, &error));
        QVERIFY2(error.contains(runDir), qPrintable(error));
        QVERIFY(!launcher.isRunning());
        QCOMPARE(store.eventCount(), int64_t(0));
    }

    void engineThatExitsAtOnce()
    {
        QTemporaryDir scripts;
        const QString engine = writeScript(scripts, "engine",
                                           "echo 'strata-engine: cannot load libstrata.so: no such file' >&2\n"
                                           "exit 3\n");
        MetricsStore store;
        runToEnd(store, tinyExperiment(), engine, newRunDir());
        QVERIFY(withTask(store, [&](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Failed);
            QCOMPARE(td.exitCode, 3);
            QVERIFY(!td.crashed);
            QVERIFY(td.exited);
            QVERIFY2(td.error.contains("exited with status 3"), qPrintable(td.error));
            QVERIFY2(td.error.contains("cannot load libstrata.so: no such file"), qPrintable(td.error));
        }));
    }

    void engineThatReportsAnError()
    {
        QTemporaryDir scripts;
        const QString engine = writeScript(
            scripts, "engine",
            "echo '{\"v\":1,\"type\":\"hello\",\"t\":1,\"task\":\"worker:0\"}'\n"
            "echo '{\"v\":1,\"type\":\"error\",\"t\":2,\"task\":\"worker:0\",\"kind\":\"data\","
            "\"message\":\"/data/train-images: truncated after 512 of 47040016 bytes\",\"fatal\":true}'\n"
            "echo 'strata-engine: /data/train-images: truncated' >&2\n"
            "exit 1\n");
        MetricsStore store;
        runToEnd(store, tinyExperiment(), engine, newRunDir());
        QVERIFY(withTask(store, [&](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Failed);
            QCOMPARE(td.exitCode, 1);
            QVERIFY(!td.crashed);
            // The engine's own message, not the exit status, is the error.
            QCOMPARE(td.error, QStringLiteral("/data/train-images: truncated after 512 of 47040016 bytes"));
            QVERIFY(td.hello.is_object());
        }));
        QCOMPARE(store.eventCount(), int64_t(2));
    }

    void lastLineWithoutNewlineIsKept()
    {
        QTemporaryDir scripts;
        const QString engine = writeScript(
            scripts, "engine",
            "echo '{\"v\":1,\"type\":\"hello\",\"t\":1,\"task\":\"worker:0\"}'\n"
            "printf '%s' '{\"v\":1,\"type\":\"done\",\"t\":2,\"task\":\"worker:0\",\"status\":\"completed\",\"steps\":7,\"epochs\":1}'\n");
        MetricsStore store;
        runToEnd(store, tinyExperiment(), engine, newRunDir());
        QVERIFY(withTask(store, [&](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Completed);
            QCOMPARE(td.step, int64_t(7));
            QCOMPARE(td.exitCode, 0);
        }));
        QCOMPARE(store.eventCount(), int64_t(2));
    }

    void taskRecordThatCannotBeWrittenIsReported()
    {
        // The run directory gone before the run ends: tasks.json cannot be written, and the
        // log says so (the run itself is as it was).
        QTemporaryDir scripts;
        const QString engine = writeScript(scripts, "engine",
                                           "echo '{\"v\":1,\"type\":\"hello\",\"t\":1,\"task\":\"worker:0\"}'\n"
                                           "rm -rf \"$3\"\n");
        const QString runDir = newRunDir();
        MetricsStore store;
        runToEnd(store, tinyExperiment(), engine, runDir);
        QVERIFY(!QFileInfo::exists(runDir));
        const std::vector<LogEntry> log = logOf(store);
        QVERIFY(!log.empty());
        QCOMPARE(log.back().level, QString("warning"));
        QVERIFY2(log.back().message.startsWith("Cannot write " + runDir + "/tasks.json"), qPrintable(log.back().message));
        QVERIFY(withTask(store, [](const TaskData& td) { QCOMPARE(td.exitCode, 0); }));
    }

    void engineGetsTheExperimentAndItsTask()
    {
        // The command line the engine is given and what it reads on stdin, as a stand-in
        // records them: `start` with the run directory and the task; on stdin the token, the
        // experiment's length and the experiment (never on the command line).
        QTemporaryDir scripts;
        const QString engine = writeScript(scripts, "engine",
                                           "dir=$(dirname \"$0\")\n"
                                           "printf '%s\\n' \"$@\" > \"$dir/args\"\n"
                                           "read -r token; read -r length\n"
                                           "head -c \"$length\" > \"$dir/experiment\"\n"
                                           "echo '{\"v\":1,\"type\":\"done\",\"t\":2,\"task\":\"worker:0\",\"status\":\"completed\",\"steps\":1}'\n");
        const QString runDir = newRunDir();
        MetricsStore store;
        runToEnd(store, tinyExperiment(), engine, runDir);
        QFile args(scripts.filePath("args"));
        QVERIFY(args.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(args.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.mid(0, 6), (QStringList{"start", "--run-dir", runDir, "--task", "worker:0", "--launch"}));
        QCOMPARE(lines.size(), 7);
        QVERIFY2(!QUuid::fromString(lines[6]).isNull(), qPrintable(lines[6])); // names this launch
        QFile sent(scripts.filePath("experiment"));
        QVERIFY(sent.open(QIODevice::ReadOnly));
        QFile launched(QDir(runDir).filePath("launch.strata.json"));
        QVERIFY(launched.open(QIODevice::ReadOnly));
        QCOMPARE(sent.readAll(), launched.readAll());
        QCOMPARE(Json::parse(launched.fileName().isEmpty() ? "" : readJsonText(launched.fileName())), tinyExperiment());
    }

    void everyTaskGetsTheJobTokenOnStdinOnly()
    {
        // Two tasks of a multi-worker cluster: each reads one line from stdin; argv and the
        // environment are recorded beside it.
        QTemporaryDir scripts;
        const QString engine = writeScript(scripts, "engine",
                                           "dir=$(dirname \"$0\")\n"
                                           "read -r token\n"
                                           "printf '%s\\n' \"$token\" >> \"$dir/tokens\"\n"
                                           "printf '%s\\n' \"$@\" >> \"$dir/args\"\n"
                                           "env >> \"$dir/env\"\n"
                                           "echo '{\"v\":1,\"type\":\"done\",\"t\":2,\"status\":\"completed\",\"steps\":1}'\n");
        Json e = tinyExperiment();
        e["cluster"] = Json::parse(R"({"tasks": [{"type": "chief", "node": "local"}, {"type": "worker", "node": "local", "count": 1}]})");
        auto read = [&](const char* name) {
            QFile f(scripts.filePath(name));
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        };
        MetricsStore store;
        const QString runDir = newRunDir();
        runToEnd(store, e, engine, runDir);
        const QList<QByteArray> tokens = read("tokens").trimmed().split('\n');
        QCOMPARE(tokens.size(), 2);
        QCOMPARE(tokens[0], tokens[1]); // one job, one token
        QVERIFY2(QRegularExpression("^[0-9a-f]{64}$").match(QString::fromLatin1(tokens[0])).hasMatch(), tokens[0]);
        QVERIFY(!read("args").contains(tokens[0]));
        QVERIFY(!read("env").contains(tokens[0]));
        for (const QString& file : QDir(runDir).entryList(QDir::Files)) { // nor in a file of the run
            QFile f(QDir(runDir).filePath(file));
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(!f.readAll().contains(tokens[0]), qPrintable(file));
        }
        QFile::remove(scripts.filePath("tokens"));
        runToEnd(store, e, engine, newRunDir());
        QVERIFY(read("tokens").trimmed().split('\n').front() != tokens[0]); // a new run, a new token
    }

    void theClustersTrainingTaskIsStarted()
    {
        // A cluster of a chief and an evaluator: the chief trains; the evaluator is not started.
        QTemporaryDir scripts;
        const QString engine = writeScript(scripts, "engine",
                                           "printf '%s\\n' \"$@\" >> \"$(dirname \"$0\")/args\"\n"
                                           "echo '{\"v\":1,\"type\":\"done\",\"t\":2,\"status\":\"completed\",\"steps\":1}'\n");
        Json e = tinyExperiment();
        e["cluster"] = Json::parse(R"({"nodes": [{"name": "local", "host": "localhost"}],
                                       "tasks": [{"type": "evaluator", "node": "local"},
                                                 {"type": "chief", "node": "local"}]})");
        MetricsStore store;
        runToEnd(store, e, engine, newRunDir());
        QFile args(scripts.filePath("args"));
        QVERIFY(args.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(args.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.count("start"), 1);
        QCOMPARE(lines[lines.indexOf("--task") + 1], QString("chief:0"));
        QVERIFY(withTask(store, [&](const TaskData& td) { QCOMPARE(td.task, QString("chief:0")); }, "chief:0"));
    }

    // RunController: the same runs through the controller the window and `strata run` use.

    void controllerRefusesAnInvalidDocument()
    {
        ExperimentDocument doc;
        doc.replace(tinyExperiment(), "tiny");
        doc.set("/training/optimizer/learning_rate", -1);
        doc.set("/training/epochs", 0);
        RunController run;
        QSignalSpy started(&run, &RunController::started);
        const QString runDir = newRunDir();
        QString error;
        QVERIFY(!run.launch(doc, kEngine, runDir, &error));
        QVERIFY2(error.startsWith("The experiment has 2 problem(s):"), qPrintable(error));
        QVERIFY2(error.contains("training.optimizer.learning_rate: must be greater than 0"), qPrintable(error));
        QVERIFY2(error.contains("training.epochs:"), qPrintable(error));
        QCOMPARE(started.count(), 0);
        QCOMPARE(run.outcome(), RunOutcome::None);
        QVERIFY(!run.isRunning());
        QVERIFY(!QFileInfo::exists(runDir));
    }

    void controllerCompletedRun()
    {
        ExperimentDocument doc;
        doc.replace(tinyExperiment(), "tiny");
        RunController run;
        QSignalSpy started(&run, &RunController::started);
        QSignalSpy finished(&run, &RunController::finished);
        const QString runDir = newRunDir();
        QString error;
        QVERIFY2(run.launch(doc, kEngine, runDir, &error), qPrintable(error));
        QCOMPARE(started.count(), 1);
        QCOMPARE(run.outcome(), RunOutcome::Running);
        QVERIFY(run.isRunning());
        QCOMPARE(run.runDir(), runDir);
        QCOMPARE(run.tasks(), QStringList{kTask});
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(run.outcome(), RunOutcome::Completed);
        const QString summary = run.summary();
        QVERIFY2(summary.startsWith("worker:0 completed: test loss "), qPrintable(summary));
        QVERIFY2(summary.contains("accuracy 0."), qPrintable(summary));
        // The summary's numbers are the `done` event's.
        withTask(run.store(), [&](const TaskData& td) {
            QVERIFY2(summary.contains(QString::number(td.done["test"]["accuracy"].get<double>(), 'f', 4)), qPrintable(summary));
        });

        // A second run on the same controller starts from an empty store.
        const int64_t firstEvents = run.store().eventCount();
        QVERIFY(firstEvents > 0);
        doc.set("/training/epochs", 1);
        const QString second = newRunDir();
        QVERIFY2(run.launch(doc, kEngine, second, &error), qPrintable(error));
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(run.outcome(), RunOutcome::Completed);
        QCOMPARE(run.store().eventCount(), int64_t(readJsonLines(second + "/events-worker-0.jsonl").size()));
        withTask(run.store(), [&](const TaskData& td) { QCOMPARE(td.done["epochs"].get<int>(), 1); });

        // A launch that cannot start leaves the last run as it was.
        const int64_t events = run.store().eventCount();
        QVERIFY(!run.launch(doc, m_dir.filePath("no-such-engine"), newRunDir(), &error));
        QVERIFY2(error.contains("no-such-engine"), qPrintable(error));
        QCOMPARE(run.store().eventCount(), events);
        QCOMPARE(run.outcome(), RunOutcome::Completed);
        QVERIFY2(run.summary().startsWith("worker:0 completed"), qPrintable(run.summary()));
    }

    void controllerLaunchesTheDocumentWithAbsolutePaths()
    {
        // A document whose data is beside it, relative: the engine runs from the run
        // directory and must still find it.
        QTemporaryDir docDir;
        QVERIFY(QDir(docDir.path()).mkpath("data"));
        writeFile(docDir.filePath("data/reviews.tsv"),
                  "1\tgreat film, loved it\n0\tdull and far too long\n1\twonderful acting\n0\tboring plot\n"
                  "1\tgreat fun\n0\tterrible\n1\tloved the music\n0\tfar too long\n");
        Json e = Json::parse(R"({"strata": 1, "name": "text", "seed": 1,
            "model": {"input_shape": [8], "layers": [{"type": "Embedding", "input_dim": 50, "output_dim": 4},
                                                     {"type": "GlobalAveragePooling1D"}, {"type": "Dense", "units": 1}]},
            "data": {"source": {"type": "text", "train": "data/reviews.tsv", "test": "data/reviews.tsv",
                                "vocab_size": 50, "max_length": 8}},
            "training": {"epochs": 1, "batch_size": 4, "loss": {"type": "binary_crossentropy", "from_logits": true},
                         "metrics": ["accuracy"], "threads": 1}})");
        const QString file = writeFile(docDir.filePath("text.strata.json"), QByteArray::fromStdString(e.dump()));
        ExperimentDocument doc;
        QString error;
        QVERIFY2(doc.load(file, &error), qPrintable(error));
        RunController run;
        QSignalSpy finished(&run, &RunController::finished);
        const QString runDir = newRunDir();
        QVERIFY2(run.launch(doc, kEngine, runDir, &error), qPrintable(error));
        QVERIFY(finished.wait(kRunTimeoutMs));
        QVERIFY2(run.outcome() == RunOutcome::Completed, qPrintable(run.summary()));
        QFile launched(runDir + "/launch.strata.json");
        QVERIFY(launched.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromStdString(Json::parse(launched.readAll().toStdString())["data"]["source"]["train"].get<std::string>()),
                 docDir.filePath("data/reviews.tsv"));
    }

    void controllerStoppedRun()
    {
        ExperimentDocument doc;
        doc.replace(endlessExperiment(), "endless");
        RunController run;
        QSignalSpy finished(&run, &RunController::finished);
        QString error;
        QVERIFY2(run.launch(doc, kEngine, newRunDir(), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(stepOf(run.store()) > 0, kRunTimeoutMs);
        QCOMPARE(run.outcome(), RunOutcome::Running);
        run.stop();
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(run.outcome(), RunOutcome::Stopped);
        int64_t steps = 0;
        withTask(run.store(), [&](const TaskData& td) { steps = td.done["steps"].get<int64_t>(); });
        QVERIFY(steps > 0);
        QCOMPARE(run.summary(), QStringLiteral("worker:0 stopped at step %1 (checkpoint saved)").arg(steps));
    }

    void controllerFailedRun()
    {
        // The document validates, but its data cannot be read: the engine fails at startup.
        ExperimentDocument doc;
        QString missing;
        const Json e = unreadableDataExperiment(m_dir, &missing);
        doc.replace(e, "unreadable data");
        QVERIFY(doc.validation().ok());
        RunController run;
        QSignalSpy finished(&run, &RunController::finished);
        QString error;
        QVERIFY2(run.launch(doc, kEngine, newRunDir(), &error), qPrintable(error));
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(run.outcome(), RunOutcome::Failed);
        const QString summary = run.summary();
        QVERIFY2(summary.startsWith("worker:0 failed: "), qPrintable(summary));
        QVERIFY2(summary.contains(missing), qPrintable(summary));
        withTask(run.store(), [&](const TaskData& td) { QCOMPARE(td.exitCode, 1); });
    }

    void controllerKilledRun()
    {
        ExperimentDocument doc;
        doc.replace(endlessExperiment(), "endless");
        RunController run;
        QSignalSpy finished(&run, &RunController::finished);
        QString error;
        QVERIFY2(run.launch(doc, kEngine, newRunDir(), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(stepOf(run.store()) > 0, kRunTimeoutMs);
        run.killTask(kTask);
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(run.outcome(), RunOutcome::Failed);
        QVERIFY2(run.summary().startsWith("worker:0 failed: worker:0 was killed by signal 9"), qPrintable(run.summary()));
    }

    void defaultRunDirectory()
    {
        const QString dir = JobLauncher::defaultRunDir("my-exp");
        QVERIFY2(QRegularExpression("/runs/my-exp-\\d{8}-\\d{6}$").match(dir).hasMatch(), qPrintable(dir));
        QVERIFY(QDir::isAbsolutePath(dir));
        // Two runs within one second get directories of their own (the second would resume
        // from the first's checkpoint otherwise).
        QVERIFY(QDir().mkpath(dir));
        const QString second = JobLauncher::defaultRunDir("my-exp");
        QVERIFY(QDir().rmdir(dir));
        if (!second.startsWith(dir)) // the second ticked over: nothing shared either way
            QSKIP("the clock moved to the next second between the two calls; rerun");
        QCOMPARE(second, dir + "-2");
    }
};

QTEST_GUILESS_MAIN(TestJobLauncher)
#include "tst_job_launcher.moc"
