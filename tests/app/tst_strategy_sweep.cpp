// StrategySweep with the real engine: the same tiny experiment under OneDevice and Mirrored
// one after another (identical model, data, seed; only the strategy and the name differ),
// recorded as "sweep" in a history; a variant that cannot run stops the sweep before it
// starts, and one whose node fails its check ends it naming the node; stopping keeps the
// finished runs and starts no more.

#include "../event_deadline.h"
#include "app/compare/strategy_sweep.h"
#include "app/history/run_history.h"

#include "app_test_util.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace strata::app;
using namespace apptest;

namespace {

const HostCapabilities kTwoCpus{2, 0, true};
const QString kEngine = QStringLiteral(STRATA_ENGINE_PATH);

Json readJson(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? Json::parse(f.readAll().toStdString(), nullptr, false) : Json();
}

QList<SweepVariant> oneDeviceAndMirrored()
{
    return {{"OneDevice", Json{{"type", "OneDevice"}, {"device", "cpu:0"}}},
            {"Mirrored x2", Json{{"type", "Mirrored"}, {"devices", {"cpu:0", "cpu:1"}}}}};
}

// A sweep on this machine over the tiny experiment, recording into a history of its own.
struct SweepHere {
    QTemporaryDir dir;
    RunHistory history;
    RunController run;
    StrategySweep sweep{&run};
    ExperimentDocument base;
    QString error;

    SweepHere()
    {
        if (history.open(dir.filePath("history.sqlite"), &error))
            run.setHistory(&history, "app");
        base.setHost(kTwoCpus);
        base.replace(tinyExperiment(), "tiny");
    }
};

} // namespace

class TestStrategySweep : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void labels()
    {
        QCOMPARE(sweepLabel(Json{{"type", "OneDevice"}}), QString("OneDevice"));
        QCOMPARE(sweepLabel(Json{{"type", "Mirrored"}, {"devices", {"cpu:0", "cpu:1"}}}), QString("Mirrored x2"));
        QCOMPARE(sweepLabel(Json{{"type", "CentralStorage"}, {"compute_devices", {"cpu:0", "cpu:1", "cpu:2"}}}),
                 QString("CentralStorage x3"));
        const Json e = StrategySweep::variantExperiment(tinyExperiment(), oneDeviceAndMirrored()[1]);
        QCOMPARE(e["name"].get<std::string>(), std::string("tiny-mirrored-x2"));
        QCOMPARE(e["strategy"]["type"].get<std::string>(), std::string("Mirrored"));
        QCOMPARE(e["model"], tinyExperiment()["model"]);
    }

    void singleProcessVariantsOfAMultiWorkerExperimentTrainInOneTask()
    {
        Json base = tinyExperiment();
        base["strategy"] = {{"type", "MultiWorkerMirrored"}};
        base["cluster"] = Json::parse(R"({"nodes": [{"name": "local", "host": "localhost"}],
            "tasks": [{"type": "evaluator", "node": "local"}, {"type": "chief", "node": "local", "port": 29600},
                      {"type": "worker", "node": "local", "count": 2}]})");
        const Json mirrored = StrategySweep::variantExperiment(base, oneDeviceAndMirrored()[1]);
        QCOMPARE(mirrored["cluster"]["tasks"],
                 Json::parse(R"([{"type": "worker", "node": "local", "count": 1, "port": 29600}])"));
        QCOMPARE(mirrored["cluster"]["nodes"], base["cluster"]["nodes"]);
        // The variant is valid where the multi-worker cluster is not, for a single process.
        ExperimentDocument doc;
        doc.setHost(kTwoCpus);
        doc.replace(mirrored, "variant");
        QVERIFY2(doc.validation().problems.isEmpty(), qPrintable(doc.validation().problems.value(0).message));
        // A multi-worker variant keeps the cluster.
        const Json multi = StrategySweep::variantExperiment(base, {"MWM", Json{{"type", "MultiWorkerMirrored"}}});
        QCOMPARE(multi["cluster"], base["cluster"]);
    }

    // The multi-process variants bring a job of their own on this machine (same model, data
    // and seed): ParameterServer a coordinator, two workers and a ps task; MultiWorkerMirrored
    // a chief and a worker; every port automatic; both valid.
    void multiProcessVariantsRunAJobHere()
    {
        const SweepVariant ps = sweepVariant("ParameterServer", 2, 2);
        QCOMPARE(ps.label, QString("ParameterServer 2 workers"));
        QCOMPARE(ps.strategy, Json({{"type", "ParameterServer"}}));
        QCOMPARE(ps.cluster["tasks"], Json::parse(R"([{"type": "chief", "node": "local", "count": 1, "port": 0},
            {"type": "worker", "node": "local", "count": 2, "port": 0}, {"type": "ps", "node": "local", "count": 1, "port": 0}])"));
        QCOMPARE(ps.cluster["nodes"][0]["host"].get<std::string>(), std::string("localhost"));
        const SweepVariant mwm = sweepVariant("MultiWorkerMirrored", 2, 2);
        QCOMPARE(mwm.label, QString("MultiWorkerMirrored 2 workers"));
        Json base = tinyExperiment();
        base["cluster"] = Json::parse(R"({"nodes": [{"name": "gpu1", "host": "gpu1.example"}],
                                         "tasks": [{"type": "worker", "node": "gpu1"}]})");
        for (const SweepVariant& v : {ps, mwm}) {
            const Json e = StrategySweep::variantExperiment(base, v);
            QCOMPARE(e["cluster"], v.cluster);
            QCOMPARE(e["model"], base["model"]);
            QCOMPARE(e["data"], base["data"]);
            QCOMPARE(e["seed"], base["seed"]);
            ExperimentDocument doc;
            doc.setHost(kTwoCpus);
            doc.replace(e, v.label);
            QVERIFY2(doc.validation().ok(), qPrintable(v.label + ": " + doc.validation().problems.value(0).text()));
        }
        QCOMPARE(StrategySweep::variantExperiment(base, ps)["name"].get<std::string>(),
                 std::string("tiny-parameterserver-2-workers"));
        ExperimentDocument doc;
        doc.setHost(kTwoCpus);
        doc.replace(StrategySweep::variantExperiment(base, ps), "ps");
        QCOMPARE(doc.validation().workers, 2);
    }

    void runsEveryVariantOneAfterAnother()
    {
        SweepHere here;
        QVERIFY2(here.error.isEmpty(), qPrintable(here.error));
        auto& [dir, history, run, sweep, base, error] = here;
        QSignalSpy started(&sweep, &StrategySweep::variantStarted);
        QSignalSpy finished(&sweep, &StrategySweep::finished);
        QVERIFY2(sweep.start(base, oneDeviceAndMirrored(), kEngine, &error), qPrintable(error));
        QVERIFY(sweep.isRunning());
        QVERIFY(finished.wait(testing::kEventDeadlineMs));
        QCOMPARE(finished.front()[0].toBool(), false); // not stopped
        QCOMPARE(finished.front()[1].toString(), QString());
        QCOMPARE(started.count(), 2);
        QVERIFY(!sweep.isRunning());

        const auto& runs = sweep.finishedRuns();
        QCOMPARE(runs.size(), 2);
        QVERIFY(runs[0].runDir != runs[1].runDir);
        for (const auto& r : runs) {
            QCOMPARE(r.outcome, RunOutcome::Completed);
            QVERIFY(r.historyId > 0);
            const auto record = history.run(r.historyId, &error);
            QVERIFY2(record, qPrintable(error));
            QCOMPARE(record->source, QString("sweep"));
            QCOMPARE(record->status, RunStatus::Completed);
        }
        // Same model, data and seed; the strategies differ as asked.
        const Json first = readJson(runs[0].runDir + "/launch.strata.json");
        const Json second = readJson(runs[1].runDir + "/launch.strata.json");
        for (const char* same : {"model", "data", "training", "seed"})
            QCOMPARE(first[same], second[same]);
        QCOMPARE(first["strategy"]["type"].get<std::string>(), std::string("OneDevice"));
        QCOMPARE(second["strategy"]["type"].get<std::string>(), std::string("Mirrored"));
        // The controller records as the window again once the sweep is over.
        QCOMPARE(run.historySource(), QString("app"));
    }

    // The sweep runs them for real: asynchronous ParameterServer against MultiWorkerMirrored on
    // the same model, data and seed, both completing with the same number of examples trained.
    void parameterServerAgainstMultiWorkerMirroredRuns()
    {
        SweepHere here;
        QVERIFY2(here.error.isEmpty(), qPrintable(here.error));
        auto& [dir, history, run, sweep, base, error] = here;
        QSignalSpy finished(&sweep, &StrategySweep::finished);
        QVERIFY2(sweep.start(base, {sweepVariant("MultiWorkerMirrored", 2, 2), sweepVariant("ParameterServer", 2, 2)},
                             kEngine, &error),
                 qPrintable(error));
        QVERIFY(finished.wait(2 * testing::kEventDeadlineMs)); // two jobs
        QCOMPARE(finished.front()[1].toString(), QString());
        const auto& runs = sweep.finishedRuns();
        QCOMPARE(runs.size(), 2);
        for (const auto& r : runs)
            QCOMPARE(r.outcome, RunOutcome::Completed);
        const Json mwm = readJson(runs[0].runDir + "/launch.strata.json");
        const Json ps = readJson(runs[1].runDir + "/launch.strata.json");
        for (const char* same : {"model", "data", "seed"})
            QCOMPARE(mwm[same], ps[same]);
        QCOMPARE(ps["strategy"]["type"].get<std::string>(), std::string("ParameterServer"));
        // 600 examples a pass, 2 passes: MWM's steps take 2 x 16, PS's one worker's 16.
        auto doneSteps = [](const QString& events) {
            QFile f(events);
            int64_t steps = -1;
            if (f.open(QIODevice::ReadOnly))
                for (const QByteArray& line : f.readAll().split('\n')) {
                    const Json e = Json::parse(line.toStdString(), nullptr, false);
                    if (e.is_object() && e.value("type", "") == "done")
                        steps = e.value("steps", int64_t{-1});
                }
            return steps;
        };
        QCOMPARE(doneSteps(runs[0].runDir + "/events-chief-0.jsonl"), int64_t{2 * 19});
        QCOMPARE(doneSteps(runs[1].runDir + "/events-chief-0.jsonl"), int64_t{2 * 38});
    }

    void aVariantThatCannotRunStartsNothing()
    {
        RunController run;
        StrategySweep sweep(&run);
        ExperimentDocument base;
        base.setHost(kTwoCpus);
        base.replace(tinyExperiment(), "tiny");
        QList<SweepVariant> variants = oneDeviceAndMirrored();
        variants << SweepVariant{"Mirrored x4", Json{{"type", "Mirrored"}, {"devices", {"cpu:0", "cpu:1", "cpu:2", "cpu:3"}}}};
        QString error;
        QVERIFY(!sweep.start(base, variants, kEngine, &error));
        QVERIFY2(error.contains("Mirrored x4: strategy.devices[2]"), qPrintable(error));
        QVERIFY(!sweep.isRunning());
        QVERIFY(!run.isRunning());
        QCOMPARE(run.outcome(), RunOutcome::None);
        QVERIFY(!sweep.start(base, {}, kEngine, &error));
        QVERIFY(!sweep.start(base, oneDeviceAndMirrored(), m_missing, &error));
        QVERIFY2(error.contains(m_missing), qPrintable(error));
        QVERIFY(!sweep.isRunning());
    }

    void aVariantWhoseNodeFailsItsCheckEndsTheSweep()
    {
        RunController run;
        StrategySweep sweep(&run);
        ExperimentDocument base;
        base.setHost(kTwoCpus);
        Json e = tinyExperiment();
        // A node reached over SSH where nothing listens.
        e["cluster"] = {{"nodes", {{{"name", "far"}, {"host", "127.0.0.1"}, {"ssh_port", freePort()}, {"auth", "agent"}}}},
                        {"tasks", {{{"type", "worker"}, {"node", "far"}}}}};
        base.replace(e, "far");
        QSignalSpy finished(&sweep, &StrategySweep::finished);
        QString error;
        QVERIFY2(sweep.start(base, oneDeviceAndMirrored(), kEngine, &error), qPrintable(error));
        QVERIFY(finished.wait(testing::kEventDeadlineMs));
        error = finished.front()[1].toString();
        QVERIFY2(error.startsWith("OneDevice could not start: ") && error.contains("node \"far\""), qPrintable(error));
        QVERIFY(!sweep.isRunning());
        QVERIFY(!run.isRunning());
        QVERIFY(sweep.finishedRuns().isEmpty());
    }

    void stoppingKeepsTheFinishedRuns()
    {
        RunController run;
        StrategySweep sweep(&run);
        ExperimentDocument base;
        base.setHost(kTwoCpus);
        base.replace(endlessExperiment(), "endless");
        QSignalSpy variantFinished(&sweep, &StrategySweep::variantFinished);
        QSignalSpy finished(&sweep, &StrategySweep::finished);
        QString error;
        QVERIFY2(sweep.start(base, oneDeviceAndMirrored(), kEngine, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(stepOf(run.store()) > 0, testing::kEventDeadlineMs);
        sweep.stop();
        QVERIFY(finished.wait(testing::kEventDeadlineMs));
        QCOMPARE(finished.front()[0].toBool(), true);
        QCOMPARE(variantFinished.count(), 1);
        QCOMPARE(sweep.finishedRuns().size(), 1);
        QCOMPARE(sweep.finishedRuns()[0].outcome, RunOutcome::Stopped);
        QVERIFY(!run.isRunning());
    }

private:
    const QString m_missing = QStringLiteral("/nonexistent/strata-engine");
};

QTEST_GUILESS_MAIN(TestStrategySweep)
#include "tst_strategy_sweep.moc"
