// BackupAndRestore with real processes: a run killed with SIGKILL (or stopped with SIGTERM,
// or whose newest checkpoint is damaged) resumes and ends with exactly the weights of an
// uninterrupted run with the same seed. And SIGTERM/SIGINT reach no computing thread.

#include "datasets.h"
#include "engine_process.h"

#include "strata/rundir/checkpoint.h"
#include "strata/report/event_sink.h"

#include <QtTest>

#include <csignal>

using namespace testing;

namespace {

// A CNN with Dropout (its masks must be reproduced too) on 4,000 Fashion-MNIST images:
// 125 steps per epoch, 3 epochs, a checkpoint every 25 steps; one compute thread so that
// the arithmetic is the same in every process.
Json resumeExperiment()
{
    return Json::parse(R"({
      "strata": 1, "name": "resume", "seed": 11,
      "model": {"input_shape": [28, 28, 1], "layers": [
        {"type": "Conv2D", "filters": 8, "kernel_size": 3, "activation": "relu"},
        {"type": "MaxPooling2D"},
        {"type": "Flatten"},
        {"type": "Dropout", "rate": 0.3},
        {"type": "Dense", "units": 32, "activation": "relu"},
        {"type": "Dense", "units": 10}]},
      "data": {"source": {"type": "fashion_mnist"}, "train_limit": 4000, "test_limit": 500},
      "training": {"epochs": 3, "batch_size": 32,
                   "loss": {"type": "sparse_categorical_crossentropy", "from_logits": true},
                   "metrics": ["accuracy"], "optimizer": "adam",
                   "checkpoint": {"every_steps": 25, "every_epochs": 1}, "threads": 1}
    })");
}

std::vector<float> finalWeights(const QString& runDir)
{
    const auto c = strata::run::readCheckpoint((runDir + "/model.weights").toStdString());
    std::vector<float> all;
    for (const auto& [name, t] : c.tensors)
        all.insert(all.end(), t.data(), t.data() + t.numel());
    return all;
}

std::vector<Json> epochEvents(const std::vector<Json>& events)
{
    std::vector<Json> out;
    for (const auto& e : events)
        if (e["type"] == "epoch")
            out.push_back(e);
    return out;
}

} // namespace

class TestResume : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_experiment;
    QString m_referenceRun;
    EngineResult m_reference;

    QStringList trainArgs(const QString& runDir) const
    {
        return {"train", m_experiment, "--events", "stdout", "--run-dir", runDir};
    }

    // Starts a run and sends `signal` once a checkpoint at step >= `afterStep` has been
    // reported (SIGKILL) or a step >= afterStep has been seen (others). Returns what the
    // process wrote before it ended.
    std::vector<Json> interrupt(const QString& runDir, int signal, int afterStep, bool* signalled)
    {
        QProcess p;
        p.start(STRATA_ENGINE_PATH, trainArgs(runDir));
        QByteArray out;
        *signalled = false;
        while (p.state() != QProcess::NotRunning || p.bytesAvailable()) {
            p.waitForReadyRead(100);
            out += p.readAllStandardOutput();
            if (*signalled)
                continue;
            for (const Json& e : parseLines(out)) {
                const bool trigger = signal == SIGKILL ? (e["type"] == "checkpoint" && e["step"].get<int>() >= afterStep)
                                                       : (e["type"] == "step" && e["step"].get<int>() >= afterStep);
                if (trigger) {
                    // An engine that has already exited has pid 0: kill(0) would signal this
                    // whole process group.
                    if (const qint64 pid = p.processId(); pid > 0)
                        ::kill(static_cast<pid_t>(pid), signal);
                    *signalled = true;
                    break;
                }
            }
        }
        p.waitForFinished();
        out += p.readAllStandardOutput();
        return parseLines(out);
    }

private slots:
    void initTestCase()
    {
        if (!testing::haveFashionMnist())
            QSKIP("Fashion-MNIST is not installed (Debian package dataset-fashion-mnist; scripts/install-deps.sh installs it)");
        m_experiment = writeExperiment(m_dir, resumeExperiment());
        m_referenceRun = m_dir.filePath("reference");
        m_reference = runEngine(trainArgs(m_referenceRun));
        QVERIFY2(m_reference.exitCode == 0, qPrintable(m_reference.errText()));
        QCOMPARE(m_reference.events.back()["steps"].get<int>(), 375);
    }

    void sigkillMidEpochThenResume()
    {
        const QString runDir = m_dir.filePath("killed");
        bool killed = false;
        const auto before = interrupt(runDir, SIGKILL, 50, &killed);
        QVERIFY(killed);
        for (const auto& e : before)
            QVERIFY2(e["type"] != "done", "the run finished before it could be killed");

        const EngineResult resumed = runEngine(trainArgs(runDir));
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.errText()));
        const Json* start = resumed.first("start");
        QVERIFY(start);
        const int from = (*start)["resumed_from_step"].get<int>();
        QVERIFY2(from >= 50 && from % 25 == 0 && from < 375, qPrintable(QString::number(from)));
        QCOMPARE(resumed.events.back()["steps"].get<int>(), 375);

        QCOMPARE(finalWeights(runDir), finalWeights(m_referenceRun));
        // The epoch that was interrupted reports the same metrics as the uninterrupted run:
        // its running totals came back with the checkpoint.
        const auto reference = epochEvents(m_reference.events);
        const auto after = epochEvents(resumed.events);
        QVERIFY(!after.empty());
        const Json& last = after.back();
        QCOMPARE(last["train"].dump(), reference[last["epoch"].get<size_t>()]["train"].dump());
        QCOMPARE(resumed.events.back()["test"].dump(), m_reference.events.back()["test"].dump());
    }

    void sigtermSavesOneCheckpointAndStops()
    {
        const QString runDir = m_dir.filePath("terminated");
        bool signalled = false;
        const auto events = interrupt(runDir, SIGTERM, 60, &signalled);
        QVERIFY(signalled);
        QVERIFY(!events.empty());
        const Json& done = events.back();
        QCOMPARE(done["type"].get<std::string>(), std::string("done"));
        QCOMPARE(done["status"].get<std::string>(), std::string("stopped"));
        const int stoppedAt = done["steps"].get<int>();
        QVERIFY(stoppedAt >= 60 && stoppedAt < 375);
        // The last checkpoint is at the step where it stopped.
        const Json* lastCheckpoint = nullptr;
        for (const auto& e : events)
            if (e["type"] == "checkpoint")
                lastCheckpoint = &e;
        QVERIFY(lastCheckpoint);
        QCOMPARE((*lastCheckpoint)["step"].get<int>(), stoppedAt);

        const EngineResult resumed = runEngine(trainArgs(runDir));
        QCOMPARE(resumed.exitCode, 0);
        QCOMPARE((*resumed.first("start"))["resumed_from_step"].get<int>(), stoppedAt);
        QCOMPARE(finalWeights(runDir), finalWeights(m_referenceRun));
    }

    void stopSignalsAreTakenByTheirOwnThread()
    {
        // Every thread of a running Mirrored task (replicas, input pipeline, BLAS) blocks
        // SIGTERM and SIGINT, so no computation is interrupted by them (with a plain handler,
        // stopped runs now and then aborted on a corrupted heap inside oneDNN's sgemm); one
        // thread waits for them, and SIGINT stops the run as SIGTERM does.
        Json mirrored = resumeExperiment();
        mirrored["strategy"] = {{"type", "Mirrored"}, {"devices", {"cpu:0", "cpu:1"}}, {"logical_cpu_devices", 2}};
        const QString experiment = writeExperiment(m_dir, mirrored, "mirrored.strata.json");
        QProcess p;
        p.start(STRATA_ENGINE_PATH, {"train", experiment, "--events", "stdout", "--run-dir", m_dir.filePath("sigint")});
        QByteArray out;
        bool stepping = false;
        while (!stepping && p.waitForReadyRead(30000)) {
            out += p.readAllStandardOutput();
            for (const Json& e : parseLines(out))
                stepping = stepping || e["type"] == "step";
        }
        QVERIFY2(stepping, out.constData());
        const uint64_t stopBits = (uint64_t(1) << (SIGTERM - 1)) | (uint64_t(1) << (SIGINT - 1));
        const QString tasks = QString("/proc/%1/task").arg(p.processId());
        QStringList names;
        for (const QString& tid : QDir(tasks).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            QFile status(tasks + "/" + tid + "/status");
            QVERIFY(status.open(QIODevice::ReadOnly));
            QString name;
            uint64_t blocked = 0;
            for (const QByteArray& line : status.readAll().split('\n')) {
                if (line.startsWith("Name:"))
                    name = QString::fromUtf8(line.mid(5).trimmed());
                if (line.startsWith("SigBlk:"))
                    blocked = line.mid(7).trimmed().toULongLong(nullptr, 16);
            }
            // The waiting thread's mask shows them unblocked while it sits in sigwait.
            if (name != "stop-signals")
                QVERIFY2((blocked & stopBits) == stopBits, qPrintable(name + " does not block SIGTERM and SIGINT"));
            names << name;
        }
        QVERIFY2(names.contains("stop-signals"), qPrintable(names.join(", ")));
        QVERIFY2(names.contains("replica-1"), qPrintable(names.join(", ")));

        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 0);
        out += p.readAllStandardOutput();
        const std::vector<Json> events = parseLines(out);
        QCOMPARE(events.back()["type"].get<std::string>(), std::string("done"));
        QCOMPARE(events.back()["status"].get<std::string>(), std::string("stopped"));
    }

    void damagedNewestCheckpointFallsBack()
    {
        const QString runDir = m_dir.filePath("damaged");
        bool killed = false;
        interrupt(runDir, SIGKILL, 100, &killed);
        QVERIFY(killed);
        const QStringList files = QDir(runDir + "/checkpoints").entryList({"ckpt-*.strata"}, QDir::Files, QDir::Name);
        QCOMPARE(files.size(), 2);
        const QString newest = runDir + "/checkpoints/" + files.last();
        QFile(newest).resize(QFileInfo(newest).size() / 2);

        const EngineResult resumed = runEngine(trainArgs(runDir));
        QCOMPARE(resumed.exitCode, 0);
        bool warned = false;
        for (const auto& e : resumed.events)
            warned = warned || (e["type"] == "log" && e["level"] == "warning" &&
                                QString::fromStdString(e["message"].get<std::string>()).contains(files.last()));
        QVERIFY(warned);
        QCOMPARE(finalWeights(runDir), finalWeights(m_referenceRun));
    }

    void checkpointsOfAnotherModelAreRefused()
    {
        Json other = resumeExperiment();
        other["model"]["layers"][4]["units"] = 64;
        const QString file = writeExperiment(m_dir, other, "other.strata.json");
        const EngineResult r = runEngine({"train", file, "--events", "stdout", "--run-dir", m_referenceRun});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.errText().contains("model.layers[4].units: 32 (checkpoint) vs 64 (experiment)"),
                 qPrintable(r.errText()));
    }

    // A session killed in the middle of an event leaves a torn last line; the next session's
    // events start on a line of their own, so only the torn line is lost to a reader.
    void aKilledSessionsTornLineStaysItsOwn()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const char* prefix : {"events-", "steps-"}) {
            QFile torn(dir.filePath(QString(prefix) + "worker-0.jsonl"));
            QVERIFY(torn.open(QIODevice::WriteOnly));
            torn.write("{\"type\": \"hello\"}\n{\"type\": \"st");
        }
        {
            strata::run::EventSink sink("worker:0", nullptr);
            sink.openRunFiles(dir.path().toStdString());
            sink.emit("log", {{"message", "resumed"}});
            sink.record({{"step", 1}});
        }
        for (const char* prefix : {"events-", "steps-"}) {
            QFile file(dir.filePath(QString(prefix) + "worker-0.jsonl"));
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QList<QByteArray> lines = file.readAll().split('\n');
            QCOMPARE(lines.size(), 4); // hello, the torn line, this session's line, ""
            QCOMPARE(lines[1], QByteArray("{\"type\": \"st"));
            QVERIFY2(!Json::parse(lines[2].toStdString(), nullptr, false).is_discarded(), lines[2].constData());
        }
    }
};

QTEST_GUILESS_MAIN(TestResume)
#include "tst_resume.moc"
