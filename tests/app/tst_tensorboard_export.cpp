// `strata export tensorboard` (app/tensorboard/): real runs of the build's engine exported,
// then every record of every event file decoded by tensorboard_check.py with python3-protobuf
// against the same .proto files (compiled there by protoc), each masked CRC-32C checked with
// crcmod, and every value compared with the run's own events-*.jsonl and steps-*.jsonl (every
// step's per-replica loss, the epochs' metrics, the validation and test evaluations, step
// times, throughput, ...). Also: --follow writing a run as it goes and ending with it, a run
// named by its history id, an export replacing the previous one, and bad input (a missing run,
// a directory that is no run, damaged event files, bad arguments) with its message, and
// RunScalars alone on epochs lacking their number or step.

#include "app_test_util.h"
#include "history_test_util.h"

#include "app/compare/strategy_sweep.h"
#include "app/history/run_history.h"
#include "app/launch/headless_run.h"
#include "app/tensorboard/export_command.h"
#include "app/tensorboard/run_scalars.h"
#include "app/tensorboard/tf_record.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QProcess>
#include <QtTest>

#include <cstdio>
#include <fstream>
#include <future>
#include <thread>

using namespace strata::app;
using apptest::Json;

namespace {

const QString kEngine = QStringLiteral(STRATA_ENGINE_PATH);

// exportCommand in this process, its output and errors captured.
struct Exported {
    int status = -1;
    QString out, err;
};

QString readAll(std::FILE* f)
{
    std::fflush(f);
    std::rewind(f);
    QByteArray text;
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;)
        text.append(buffer, qsizetype(n));
    std::fclose(f);
    return QString::fromUtf8(text);
}

Exported exportRuns(const QStringList& args, int pollMs = 100)
{
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    Exported r;
    r.status = tensorboard::exportCommand(args, out, err, pollMs);
    r.out = readAll(out);
    r.err = readAll(err);
    return r;
}

// Mirrored over two logical CPU devices: a loss per replica every step. 600 examples in
// batches of 32 with a validation split: 17 steps an epoch, validation and test evaluations.
Json mirroredExperiment(int epochs)
{
    Json e = apptest::tinyExperiment(epochs);
    e["name"] = "mirrored";
    e["strategy"] = {{"type", "Mirrored"}, {"logical_cpu_devices", 2}};
    e["training"]["batch_size"] = 32;
    e["data"]["validation"] = "split";
    e["data"]["validation_split"] = 0.1;
    return e;
}

// The event files under `dir`, each with its size.
QMap<QString, qint64> eventFiles(const QString& dir)
{
    QMap<QString, qint64> files;
    QDirIterator it(dir, {"*tfevents*"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        files[it.filePath()] = it.fileInfo().size();
    }
    return files;
}

int lineCount(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    return int(f.readAll().count('\n'));
}

// What each task of the job in `runDir` did: its last events and the end of its stderr (for
// stderr: a Qt Test message holds only 1,000 characters).
QString taskReport(const QString& runDir)
{
    QString text;
    for (const QString& name : QDir(runDir).entryList({"events-*.jsonl", "stderr-*.log"}, QDir::Files, QDir::Name)) {
        QFile f(runDir + "/" + name);
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
        text += name + QString(" (%1 lines):\n").arg(lines.size());
        for (qsizetype i = std::max<qsizetype>(0, lines.size() - 4); i < lines.size(); ++i)
            text += "    " + QString::fromUtf8(lines[i].left(300)) + "\n";
    }
    return text;
}

} // namespace

class TestTensorBoardExport : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_runs = 0;

    // A finished run of `experiment` by the engine alone (its run directory: events,
    // full-resolution steps, the experiment).
    QString train(const Json& experiment, const QString& name)
    {
        const QString runDir = m_dir.filePath(name);
        const QString file = m_dir.filePath(name + ".strata.json");
        std::ofstream(file.toStdString()) << experiment.dump(2);
        QProcess engine;
        engine.start(kEngine, {"train", file, "--run-dir", runDir, "--events", "none", "--quiet"});
        if (!engine.waitForFinished(apptest::kEventDeadlineMs) || engine.exitCode() != 0)
            qFatal("the engine failed: %s", engine.readAllStandardError().constData());
        return runDir;
    }

    // tensorboard_check.py on an exported run: its summary (values per TensorBoard run and tag).
    Json check(const QString& runDir, const QString& exportDir, const QString& primary = "worker-0",
               bool coordinated = false)
    {
        QProcess python;
        QStringList args{STRATA_TB_CHECK, STRATA_TB_PROTO_DIR, runDir, exportDir, "--primary", primary};
        if (coordinated)
            args << "--coordinated";
        python.start("/usr/bin/python3", args);
        if (!python.waitForFinished(apptest::kEventDeadlineMs))
            qFatal("tensorboard_check.py did not finish");
        const QByteArray err = python.readAllStandardError();
        if (python.exitStatus() != QProcess::NormalExit || python.exitCode() != 0) {
            qWarning("%s", err.constData());
            return Json();
        }
        return Json::parse(python.readAllStandardOutput().toStdString());
    }

private Q_SLOTS:
    void crc32cAndFraming()
    {
        using namespace strata::app::tensorboard;
        // The Castagnoli CRC's check value (RFC 3720's "123456789") and TFRecord's mask.
        QCOMPARE(crc32c("123456789"), 0xE3069283u);
        QCOMPARE(crc32c(""), 0u);
        QCOMPARE(crc32c("56789", crc32c("1234")), 0xE3069283u);
        const uint32_t c = crc32c("abc");
        QCOMPARE(maskedCrc32c("abc"), uint32_t(((c >> 15) | (c << 17)) + 0xa282ead8u));
        std::string record;
        appendRecord(record, "abc");
        QCOMPARE(record.size(), size_t(8 + 4 + 3 + 4));
        QCOMPARE(record.substr(0, 8), std::string("\x03\0\0\0\0\0\0\0", 8));
        QCOMPARE(record.substr(12, 3), std::string("abc"));
    }

    void exportsARealRun()
    {
        const QString runDir = train(mirroredExperiment(2), "mirrored-run");
        const QString out = m_dir.filePath("logs");
        const Exported r = exportRuns({"tensorboard", runDir, out});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
        QVERIFY2(r.out.contains("mirrored-run -> ") && r.out.contains("train, validation, worker-0"), qPrintable(r.out));

        const QString exported = out + "/mirrored-run";
        const Json summary = check(runDir, exported);
        QVERIFY(summary.is_object());
        const Json& runs = summary["runs"];
        // Every step of the run, every replica's loss at each (the values themselves: the
        // check), the epochs and the evaluations as Keras tags them.
        const int steps = lineCount(runDir + "/steps-worker-0.jsonl");
        QVERIFY(steps > 10);
        for (const char* tag : {"loss/replica_0", "loss/replica_1", "loss/step", "learning_rate", "step_time/step_ms",
                                "step_time/compute_ms", "step_time/comm_ms", "step_time/input_ms"})
            QVERIFY2(runs["worker-0"].value(tag, 0) == steps, tag);
        QVERIFY(runs["worker-0"].value("throughput/samples_per_second", 0) >= 2);
        QCOMPARE(runs["train"].value("batch_loss", 0), steps);
        QCOMPARE(runs["train"].value("batch_steps_per_second", 0), steps);
        QVERIFY(runs["train"].value("batch_accuracy", 0) >= 2);
        for (const char* tag : {"epoch_loss", "epoch_accuracy", "epoch_learning_rate", "epoch_steps_per_second"})
            QVERIFY2(runs["train"].value(tag, 0) == 2, tag);
        for (const char* tag : {"epoch_loss", "epoch_accuracy", "evaluation_loss_vs_iterations",
                                "evaluation_accuracy_vs_iterations"})
            QVERIFY2(runs["validation"].value(tag, 0) == 2, tag);
        QCOMPARE(runs["test"].value("evaluation_loss_vs_iterations", 0), 1);
        QCOMPARE(runs["test"].value("evaluation_accuracy_vs_iterations", 0), 1);

        // Again: the earlier export's files are replaced (the check finds one file per
        // folder), anything else in the folders is left alone.
        QVERIFY(apptest::writeFile(exported + "/train/notes.txt", "mine").size() > 0);
        const Exported again = exportRuns({"tensorboard", runDir, out});
        QVERIFY2(again.status == 0, qPrintable(again.err));
        QVERIFY(check(runDir, exported).is_object());
        QVERIFY(QFile::exists(exported + "/train/notes.txt"));
        // No temporary file left behind.
        QDirIterator it(exported, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (it.hasNext())
            QVERIFY2(!it.next().endsWith(".tmp"), qPrintable(it.filePath()));
    }

    void exportsJobsOfSeveralTasks_data()
    {
        QTest::addColumn<QString>("strategy");
        QTest::newRow("ParameterServer: a coordinator, two workers, a ps task") << "ParameterServer";
        QTest::newRow("MultiWorkerMirrored: a chief, a worker, an evaluator") << "MultiWorkerMirrored";
    }

    void exportsJobsOfSeveralTasks()
    {
        // Launched as `strata run` launches it (every task an engine process on this machine).
        QFETCH(QString, strategy);
        const bool ps = strategy == "ParameterServer";
        const SweepVariant variant = sweepVariant(strategy, 2, 2);
        Json experiment = apptest::tinyExperiment(2);
        experiment["name"] = strategy.toStdString();
        experiment["strategy"] = variant.strategy;
        experiment["cluster"] = variant.cluster;
        if (!ps) // an evaluator beside the chief: evaluations of its checkpoints
            experiment["cluster"]["tasks"].push_back({{"type", "evaluator"}, {"node", "local"}, {"count", 1}});
        const QString file = apptest::writeFile(m_dir.filePath(strategy + ".strata.json"),
                                                QByteArray::fromStdString(experiment.dump(2)));
        const QString runDir = m_dir.filePath(strategy + "-run");
        qputenv("STRATA_HISTORY", m_dir.filePath("headless-history.sqlite").toLocal8Bit());
        // The coordinator gives steps to whichever worker is free: the worker that joins first
        // could run the whole job alone. Held at its first step until the other has stepped
        // too (tests/app/step_barrier.cpp), every worker must step, however fast each starts.
        const QString barrier = m_dir.filePath(strategy + "-barrier");
        if (ps) {
            QVERIFY(QDir().mkpath(barrier));
            qputenv("LD_PRELOAD", STRATA_STEP_BARRIER);
            qputenv("STRATA_STEP_BARRIER_DIR", barrier.toLocal8Bit());
            qputenv("STRATA_STEP_BARRIER_COUNT", "2");
        }
        const int status = runHeadless({file, runDir, kEngine});
        for (const char* name : {"LD_PRELOAD", "STRATA_STEP_BARRIER_DIR", "STRATA_STEP_BARRIER_COUNT", "STRATA_HISTORY"})
            qunsetenv(name);
        if (status != 0)
            std::fprintf(stderr, "%s", qPrintable(taskReport(runDir)));
        QVERIFY2(status == 0, "the job failed (each task's report above)");

        const QString out = m_dir.filePath("jobs");
        const Exported r = exportRuns({"tensorboard", runDir, out});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const Json summary = check(runDir, out + "/" + strategy + "-run", "chief-0", ps);
        QVERIFY(summary.is_object());
        const Json& runs = summary["runs"];
        QCOMPARE(runs["train"].value("epoch_loss", 0), 2);
        QCOMPARE(runs["train"].value("batch_loss", 0), lineCount(runDir + "/steps-chief-0.jsonl"));
        QCOMPARE(runs["test"].value("evaluation_loss_vs_iterations", 0), 1);
        for (const char* worker : ps ? std::vector{"worker-0", "worker-1"} : std::vector{"chief-0", "worker-0"}) {
            const int steps = lineCount(runDir + "/steps-" + worker + ".jsonl");
            if (steps <= 0)
                std::fprintf(stderr, "%s", qPrintable(taskReport(runDir)));
            QVERIFY2(steps > 0, qPrintable(QString(worker) + " did not step (each task's report above)"));
            QVERIFY2(runs[worker].value("loss/replica_0", 0) == steps, worker);
            QVERIFY2(runs[worker].value("step_time/compute_ms", 0) == steps, worker);
            if (ps) // each worker's every push: its staleness and the global step it ran
                for (const char* tag : {"parameter_server/staleness_mean", "parameter_server/global_step"})
                    QVERIFY2(runs[worker].value(tag, 0) == steps, tag);
        }
        if (ps) {
            // The coordinator's records hold the job's loss but its workers' step times: none.
            QCOMPARE(runs["chief-0"].value("loss/step", 0), lineCount(runDir + "/steps-chief-0.jsonl"));
            QVERIFY(!runs["chief-0"].contains("step_time/step_ms"));
            QVERIFY(!runs["train"].contains("batch_steps_per_second"));
        } else {
            QVERIFY(runs["evaluator-0"].value("evaluation_loss_vs_iterations", 0) >= 1);
        }
    }

    void resumedRunHasEveryStepOnce()
    {
        // Killed part way through its second epoch, then run again into the same directory to
        // its end from the checkpoint of the first: two sessions in each file, the steps after
        // the checkpoint run twice. Each step is exported once, the epochs of both sessions are
        // there.
        Json experiment = apptest::tinyExperiment(6);
        experiment["name"] = "resumed";
        experiment["data"]["source"]["samples"] = 60000; // 3750 steps an epoch
        const QString runDir = m_dir.filePath("resumed-run");
        const QString file = apptest::writeFile(m_dir.filePath("resumed.strata.json"),
                                                QByteArray::fromStdString(experiment.dump(2)));
        const QStringList args{"train", file, "--run-dir", runDir, "--events", "none", "--quiet"};
        QProcess first;
        first.start(kEngine, args);
        QVERIFY(first.waitForStarted());
        // Past the first epoch's checkpoint (3750 steps), or the engine ended: an event either way.
        const auto pastOrEnded = [&] {
            return lineCount(runDir + "/steps-worker-0.jsonl") > 4000 || first.state() == QProcess::NotRunning;
        };
        (void)QTest::qWaitFor(pastOrEnded, apptest::kEventDeadlineMs); // which of the two: checked below
        const bool past = lineCount(runDir + "/steps-worker-0.jsonl") > 4000 && first.state() == QProcess::Running;
        if (!past)
            std::fprintf(stderr, "%s%s", qPrintable(taskReport(runDir)), first.readAllStandardError().constData());
        QVERIFY2(past, "the engine ended before the kill, or is stuck (its report above)");
        first.kill();
        QVERIFY(first.waitForFinished(60000));
        const int firstSession = lineCount(runDir + "/steps-worker-0.jsonl");
        QProcess second;
        second.start(kEngine, args);
        QVERIFY(second.waitForFinished(apptest::kEventDeadlineMs));
        QCOMPARE(second.exitCode(), 0);
        const QList<Json> events = apptest::readJsonLines(runDir + "/events-worker-0.jsonl");
        QVERIFY(std::count_if(events.begin(), events.end(), [](const Json& e) { return e["type"] == "hello"; }) == 2);
        const int64_t steps = events.back()["steps"].get<int64_t>();
        QVERIFY2(lineCount(runDir + "/steps-worker-0.jsonl") > steps, "no step ran twice"); // the test's premise
        QVERIFY(firstSession < steps);

        const QString out = m_dir.filePath("resumed-out");
        const Exported r = exportRuns({"tensorboard", runDir, out});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const Json summary = check(runDir, out + "/resumed-run");
        QVERIFY(summary.is_object());
        QCOMPARE(summary["runs"]["train"].value("batch_loss", 0), int(steps));
        QCOMPARE(summary["runs"]["worker-0"].value("loss/replica_0", 0), int(steps));
        QCOMPARE(summary["runs"]["train"].value("epoch_loss", 0), 6);
    }

    void recordsOfAnOlderEngineTakeTheirWindowsTime()
    {
        // Step records without `t` (engines before it): each takes the time of the live step
        // event covering it.
        const QString runDir = train(apptest::tinyExperiment(2), "untimed-run");
        QList<QByteArray> lines;
        for (Json record : apptest::readJsonLines(runDir + "/steps-worker-0.jsonl")) {
            record.erase("t");
            lines << QByteArray::fromStdString(record.dump());
        }
        apptest::writeFile(runDir + "/steps-worker-0.jsonl", lines.join('\n') + '\n');
        const QString out = m_dir.filePath("untimed-out");
        const Exported r = exportRuns({"tensorboard", runDir, out});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        const Json summary = check(runDir, out + "/untimed-run");
        QVERIFY(summary.is_object());
        QCOMPARE(summary["runs"]["train"].value("batch_loss", 0), int(lines.size()));
    }

    void namesRunsByHistoryIdAndKeepsNamesApart()
    {
        const QString runDir = train(apptest::tinyExperiment(1), "tiny-run");
        const QString history = m_dir.filePath("history.sqlite");
        qputenv("STRATA_HISTORY", history.toLocal8Bit());
        RunHistory h;
        QString error;
        QVERIFY2(h.open(history, &error), qPrintable(error));
        historytest::RunRecord record = historytest::makeRun("tiny", "OneDevice", historytest::RunStatus::Completed, 1000);
        record.runDir = runDir;
        QVERIFY2(h.insertRun(record, &error), qPrintable(error));
        // The same run by its id and by its directory: two TensorBoard folders, the second
        // named apart.
        const QString out = m_dir.filePath("by-id");
        const Exported r = exportRuns({"tensorboard", QString::number(record.id), runDir, out});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY(check(runDir, out + "/tiny-run").is_object());
        QVERIFY(check(runDir, out + "/tiny-run-2").is_object());
        // An id the history does not have.
        const Exported missing = exportRuns({"tensorboard", "999", out});
        QCOMPARE(missing.status, 1);
        QVERIFY2(missing.err.contains("999"), qPrintable(missing.err));
        qunsetenv("STRATA_HISTORY");
    }

    void followsARunAsItGoes()
    {
        // The run directory holds the experiment as the app launches it, no events yet: the
        // export waits for them, writes as they come, and ends once the run has.
        // About 3 s of training alone (under 1 s with 4000 samples: on a loaded 2-core machine,
        // too short for the files to be seen growing twice).
        Json experiment = mirroredExperiment(40);
        experiment["data"]["source"]["samples"] = 12000;
        const QString runDir = m_dir.filePath("followed");
        QVERIFY(QDir().mkpath(runDir));
        apptest::writeFile(runDir + "/launch.strata.json", QByteArray::fromStdString(experiment.dump(2)));
        const QString out = m_dir.filePath("live");
        auto follow = std::async(std::launch::async, [&] { return exportRuns({"tensorboard", runDir, out, "--follow"}, 20); });
        QTest::qWait(300);
        QVERIFY(follow.wait_for(std::chrono::seconds(0)) == std::future_status::timeout); // waiting for the run

        QProcess engine;
        engine.start(kEngine, {"train", runDir + "/launch.strata.json", "--run-dir", runDir, "--events", "none", "--quiet"});
        QVERIFY(engine.waitForStarted());
        // The files grow while the engine trains.
        QElapsedTimer clock;
        clock.start();
        qint64 seenWhileTraining = 0;
        int grew = 0;
        while (engine.state() != QProcess::NotRunning && clock.elapsed() < 120000) {
            const QMap<QString, qint64> files = eventFiles(out);
            qint64 size = 0;
            for (qint64 s : files)
                size += s;
            if (size > seenWhileTraining && engine.state() != QProcess::NotRunning) {
                if (seenWhileTraining > 0)
                    ++grew;
                seenWhileTraining = size;
            }
            engine.waitForFinished(50);
        }
        QCOMPARE(engine.exitCode(), 0);
        QVERIFY2(grew >= 2, qPrintable(QStringLiteral("grew %1 times while training").arg(grew)));
        QVERIFY(follow.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
        const Exported r = follow.get();
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("Following") && r.out.contains("to step"), qPrintable(r.out));
        // What was written as it went is the whole run, value for value.
        const Json summary = check(runDir, out + "/followed");
        QVERIFY(summary.is_object());
        QCOMPARE(summary["runs"]["train"].value("epoch_loss", 0), 40);
        QCOMPARE(summary["runs"]["worker-0"].value("loss/replica_1", 0), lineCount(runDir + "/steps-worker-0.jsonl"));
    }

    // RunScalars alone on epochs lacking fields (a hand-made or damaged stream): one without
    // its number or step has no place on the axes and writes nothing; steps per second count
    // from the step the session resumed from.
    void epochsLackingTheirNumberOrStepWriteNothing()
    {
        struct Sink : tensorboard::ScalarSink {
            QStringList values;
            void scalar(const std::string& run, const std::string& tag, int64_t step, double, double value) override
            {
                values << QString::fromStdString(run + "/" + tag + "@" + std::to_string(step) + " = ") + QString::number(value);
            }
        } sink;
        tensorboard::RunScalars scalars("worker-0", false, sink);
        const auto add = [&](const char* line) { scalars.addEvent("worker-0", *EventParser::forThisThread().parseLine(line)); };
        add(R"({"type":"start","t":1,"resumed_from_step":4})");
        add(R"({"type":"epoch","t":2,"epoch":0,"train":{"loss":0.5},"seconds":2})");
        add(R"({"type":"epoch","t":3,"step":10,"train":{"loss":0.5},"seconds":2})");
        QVERIFY2(sink.values.isEmpty(), qPrintable(sink.values.join('\n')));
        add(R"({"type":"epoch","t":4,"epoch":0,"step":10,"train":{"loss":0.5,"note":"x"},"validation":{"loss":0.75},"seconds":2})");
        QCOMPARE(sink.values, QStringList({"train/epoch_loss@0 = 0.5", "train/epoch_steps_per_second@0 = 3",
                                           "validation/epoch_loss@0 = 0.75",
                                           "validation/evaluation_loss_vs_iterations@10 = 0.75"}));
    }

    void badInput()
    {
        const QString out = m_dir.filePath("bad-out");
        // Bad arguments.
        QCOMPARE(exportRuns({"tensorboard", out}).status, 2);
        QCOMPARE(exportRuns({"csv", "run", out}).status, 2);
        QVERIFY(exportRuns({"--help"}).out.contains("tensorboard --logdir DIR"));
        // A run that does not exist: named, and nothing written (not even the folder), also
        // when another run given is fine.
        const QString good = train(apptest::tinyExperiment(1), "good-run");
        const Exported missing = exportRuns({"tensorboard", good, m_dir.filePath("no-such-run"), out});
        QCOMPARE(missing.status, 1);
        QVERIFY2(missing.err.contains("no-such-run") && missing.err.contains("does not exist"), qPrintable(missing.err));
        QVERIFY(!QFileInfo::exists(out));
        // A directory that is no run.
        const QString empty = m_dir.filePath("empty");
        QVERIFY(QDir().mkpath(empty));
        const Exported none = exportRuns({"tensorboard", empty, out});
        QCOMPARE(none.status, 1);
        QVERIFY2(none.err.contains("is not a run directory"), qPrintable(none.err));
        // DIR is a file.
        const QString file = apptest::writeFile(m_dir.filePath("a-file"), "x");
        QVERIFY(exportRuns({"tensorboard", good, file}).err.contains("is not a folder"));

        // Damaged event files: garbage in the middle of the events, a step record cut in two
        // and a torn last line (an engine killed while writing). The lines are named and
        // skipped, everything else exported, every value still what the files say.
        const QString damaged = train(apptest::tinyExperiment(2), "damaged-run");
        QFile events(damaged + "/events-worker-0.jsonl");
        QVERIFY(events.open(QIODevice::ReadOnly));
        QList<QByteArray> lines = events.readAll().split('\n');
        events.close();
        lines.insert(3, "\x01\x02 this is no event");
        apptest::writeFile(events.fileName(), lines.join('\n') + "{\"v\":1,\"type\":\"ste");
        QFile steps(damaged + "/steps-worker-0.jsonl");
        QVERIFY(steps.open(QIODevice::ReadOnly));
        QList<QByteArray> records = steps.readAll().split('\n');
        steps.close();
        records[5] = records[5].left(records[5].size() / 2);
        apptest::writeFile(steps.fileName(), records.join('\n'));
        const Exported r = exportRuns({"tensorboard", damaged, out});
        QVERIFY2(r.status == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("events-worker-0.jsonl, line 4: not a JSON object, skipped"), qPrintable(r.err));
        QVERIFY2(r.err.contains("steps-worker-0.jsonl, line 6: not a JSON object, skipped"), qPrintable(r.err));
        QVERIFY2(r.err.contains("events-worker-0.jsonl ends inside a line"), qPrintable(r.err));
        const Json summary = check(damaged, out + "/damaged-run");
        QVERIFY(summary.is_object());
        QCOMPARE(summary["runs"]["worker-0"].value("loss/step", 0), lineCount(steps.fileName()) - 1);
    }
};

QTEST_GUILESS_MAIN(TestTensorBoardExport)
#include "tst_tensorboard_export.moc"
