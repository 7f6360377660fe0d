// The planner checked against real runs, in a real run history (SQLite): a plan stored per
// experiment with its throughput per strategy and worker count; a finished run measured from
// its events (steady-state samples/s, the Compare page's figure) and checked against the newest
// plan of its experiment made before it started: prediction, measurement and error recorded,
// the calibration updated once (a run checked twice counts once); a run started before any
// plan, one of another experiment and one at a worker count the plan does not predict are not
// checked; the history model shows the check; the calibration is kept across reopening. The
// window's PlanSession makes its next plan with the calibration learnt (and says so), stores
// it, and a run checked against a calibrated plan counts the model's own error only.

#include "history_test_util.h"
#include "simulated_jobs.h"

#include "app/experiment/experiment_document.h"
#include "app/history/history_model.h"
#include "app/plan/plan_calibration.h"
#include "app/plan/plan_history.h"
#include "app/plan/plan_session.h"

#include <QDateTime>
#include <QTemporaryDir>
#include "two_core_probe.h"

#include <QtTest>

using namespace strata::app;
using namespace strata::app::plan;
using namespace historytest;

namespace {

Prediction predicted(Strategy strategy, int workers, double samplesPerSecond)
{
    Prediction p;
    p.strategy = strategy;
    p.workers = workers;
    p.samplesPerSecond = samplesPerSecond;
    p.stepSeconds = 0.05;
    p.speedup = workers;
    p.efficiency = 1;
    return p;
}

// A plan of "mlp" as the model would make it, by hand: OneDevice at 1, MultiWorkerMirrored at 2 and 4.
ScalingPlan mlpPlan()
{
    ScalingPlan plan;
    plan.request.experiment = "mlp";
    plan.request.hostSet = hostSetKey({"localhost"});
    plan.predictions = {predicted(Strategy::OneDevice, 1, 600), predicted(Strategy::MultiWorkerMirrored, 2, 1000),
                        predicted(Strategy::MultiWorkerMirrored, 4, 1500)};
    plan.recommendation = {Strategy::MultiWorkerMirrored, 2, {"several workers"}};
    return plan;
}

// The planner tests' 2-core probe, on "localhost" and without prefetch.
ProbeResult twoCoreProbe()
{
    ProbeResult p = planfixture::twoCoreProbe();
    p.host = QStringLiteral("localhost");
    p.compute.prefetch = ComputeProbe{}.prefetch;
    return p;
}

const Prediction& findPrediction(const ScalingPlan& plan, Strategy s, int workers)
{
    for (const Prediction& p : plan.predictions)
        if (p.strategy == s && p.workers == workers)
            return p;
    qFatal("no prediction for %s at %d", qPrintable(strategyName(s)), workers);
}

qint64 addRun(RunHistory& history, const QString& name, qint64 startedAt)
{
    RunRecord run = makeRun(name, "MultiWorkerMirrored", RunStatus::Completed, startedAt);
    QString error;
    if (!history.insertRun(run, &error))
        qFatal("%s", qPrintable(error));
    return run.id;
}

} // namespace

class TestPlanHistory : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void experimentsName()
    {
        QCOMPARE(experimentName(nlohmann::ordered_json::parse(R"({"name":"mlp"})")), QString("mlp"));
        QCOMPARE(experimentName(nlohmann::ordered_json::object()), QString("experiment")); // as RunRecorder says
    }

    void measuredFromTheRunsEvents()
    {
        // Two MultiWorkerMirrored workers, each reporting 1000 samples/s: the job's 2000.
        MetricsStore store;
        apptest::feed(store, false, 2, apptest::mirroredJob(2, 60, [](int, int64_t) { return 20.0; }), 10);
        const std::optional<MeasuredRun> run = measuredRun(store);
        QVERIFY(run);
        QCOMPARE(run->strategy, Strategy::MultiWorkerMirrored);
        QCOMPARE(run->workers, 2);
        QCOMPARE(run->samplesPerSecond, 2000.0);
        // A run that reported no step has nothing to check.
        MetricsStore empty;
        QVERIFY(!measuredRun(empty));
    }

    void planStoredAndRunsCheckedAgainstIt()
    {
        const QString path = m_dir.filePath("history.sqlite");
        const QString hosts = hostSetKey({"localhost"});
        QString error;
        qint64 early = 0, checked = 0, otherExperiment = 0, unpredicted = 0;
        {
            RunHistory history;
            QVERIFY2(history.open(path, &error), qPrintable(error));
            const qint64 now = QDateTime::currentSecsSinceEpoch();
            early = addRun(history, "mlp", now - 3600); // before the plan
            const std::optional<PlanRecord> stored =
                storePlan(history, mlpPlan(), nlohmann::ordered_json{{"name", "mlp"}}, &error);
            QVERIFY2(stored, qPrintable(error));
            QVERIFY(stored->id > 0);
            checked = addRun(history, "mlp", now + 1);
            otherExperiment = addRun(history, "cnn", now + 1);
            unpredicted = addRun(history, "mlp", now + 2);

            // The plan as the history keeps it: the newest of its experiment, with its predictions.
            std::optional<PlanRecord> latest;
            QVERIFY2(history.latestPlan("mlp", 0, &latest, &error), qPrintable(error));
            QVERIFY(latest);
            QCOMPARE(latest->id, stored->id);
            QCOMPARE(latest->hosts, hosts);
            QCOMPARE(int(latest->predictions.size()), 3);
            QCOMPARE(latest->predictions[1].strategy, QString("MultiWorkerMirrored"));
            QCOMPARE(latest->predictions[1].workers, 2);
            QCOMPARE(latest->predictions[1].samplesPerSec, 1000.0);
            // Made by hand, without the probe's lines: nothing to remake it from.
            QVERIFY(!restoredPlan(*latest, {}));
            QVERIFY(nlohmann::json::parse(latest->plan.toStdString()).is_object());
            QVERIFY2(history.latestPlan("cnn", 0, &latest, &error), qPrintable(error));
            QVERIFY(!latest);

            // Measured 800 where 1000 was predicted: error +25%, the calibration learns x0.8.
            const MeasuredRun measured{Strategy::MultiWorkerMirrored, 2, 800};
            const std::optional<RunPrediction> prediction = checkRun(history, checked, measured, &error);
            QVERIFY2(prediction, qPrintable(error));
            QCOMPARE(prediction->planId, stored->id);
            QCOMPARE(prediction->predictedSamplesPerSec, 1000.0);
            QCOMPARE(prediction->measuredSamplesPerSec, 800.0);
            QCOMPARE(prediction->error, 0.25);
            const std::optional<RunRecord> record = history.run(checked, &error);
            QVERIFY(record && record->prediction);
            QCOMPARE(record->prediction->error, 0.25);
            QCOMPARE(predictionText(*record->prediction), QString("predicted 1000/s, measured 800/s (error +25.0%)"));

            Calibration calibration;
            QVERIFY2(storedCalibration(history, &calibration, &error), qPrintable(error));
            QCOMPARE(calibrationFactor(calibration, Strategy::MultiWorkerMirrored, hosts), 0.8);
            QCOMPARE(calibrationFactor(calibration, Strategy::OneDevice, hosts), 1.0);

            // Checked once: a second check neither records nor calibrates again.
            QVERIFY(!checkRun(history, checked, {Strategy::MultiWorkerMirrored, 2, 400}, &error));
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QVERIFY(!history.recordPrediction(checked, *prediction, "{}", &error));
            QVERIFY2(error.contains("already checked"), qPrintable(error));
            QVERIFY2(storedCalibration(history, &calibration, &error), qPrintable(error));
            QCOMPARE(calibrationFactor(calibration, Strategy::MultiWorkerMirrored, hosts), 0.8);

            // Nothing to check against: a run before the plan, another experiment's, 8 workers.
            for (const qint64 id : {early, otherExperiment})
                QVERIFY(!checkRun(history, id, measured, &error) && error.isEmpty());
            QVERIFY(!checkRun(history, unpredicted, {Strategy::MultiWorkerMirrored, 8, 900}, &error) && error.isEmpty());
            for (const qint64 id : {early, otherExperiment, unpredicted})
                QVERIFY(!history.run(id, &error)->prediction);

            // The history page's column.
            HistoryModel model(&history);
            QVERIFY(model.refresh());
            const int row = model.rowOf(checked);
            QCOMPARE(model.index(row, HistoryModel::PredictionColumn).data().toString(),
                     QString("predicted 1000/s, measured 800/s (error +25.0%)"));
            QCOMPARE(model.index(row, HistoryModel::PredictionColumn).data(HistoryModel::SortRole).toDouble(), 0.25);
            QCOMPARE(model.index(model.rowOf(early), HistoryModel::PredictionColumn).data().toString(), QString());
        }
        // Reopened: the check and the calibration are kept; a second run moves the factor by its share.
        RunHistory history;
        QVERIFY2(history.open(path, &error), qPrintable(error));
        QCOMPARE(history.run(checked, &error)->prediction->measuredSamplesPerSec, 800.0);
        const qint64 second = addRun(history, "mlp", QDateTime::currentSecsSinceEpoch() + 5);
        const std::optional<RunPrediction> again =
            checkRun(history, second, {Strategy::MultiWorkerMirrored, 4, 1500 * 1.25}, &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(again->error, -0.2);
        Calibration calibration;
        QVERIFY2(storedCalibration(history, &calibration, &error), qPrintable(error));
        // The geometric mean of 0.8 and 1.25.
        QVERIFY(qAbs(calibrationFactor(calibration, Strategy::MultiWorkerMirrored, hosts) - 1.0) < 1e-9);
    }

    // The next plan applies what the runs taught, and says so; a run checked against it counts
    // the model's own error only (the plan's factor taken out).
    void calibrationAppliedToTheNextPlan()
    {
        RunHistory history;
        QString error;
        QVERIFY2(history.open(m_dir.filePath("calibrated.sqlite"), &error), qPrintable(error));
        ExperimentDocument document;
        const QString name = experimentName(document.forLaunch());
        PlanSession session(&document, &history);
        QSignalSpy messages(&session, &PlanSession::message);

        session.makePlan(twoCoreProbe());
        QVERIFY(session.plan());
        QVERIFY(messages.isEmpty());
        const ScalingPlan first = *session.plan();
        for (const Prediction& p : first.predictions)
            QCOMPARE(p.calibration, 1.0);
        QCOMPARE(session.calibrationNote(), QString());
        QVERIFY(session.storedPlanId() > 0);
        const Prediction& two = findPrediction(first, Strategy::MultiWorkerMirrored, 2);

        // A run of two workers measured at 80% of the prediction.
        const qint64 run = addRun(history, name, QDateTime::currentSecsSinceEpoch() + 1);
        const auto checked = checkRun(history, run, {Strategy::MultiWorkerMirrored, 2, two.samplesPerSecond * 0.8}, &error);
        QVERIFY2(checked, qPrintable(error));
        QCOMPARE(checked->planId, session.storedPlanId());

        session.makePlan(twoCoreProbe());
        const ScalingPlan& second = *session.plan();
        for (const Prediction& p : second.predictions) {
            const Prediction& before = findPrediction(first, p.strategy, p.workers);
            const double factor = p.strategy == Strategy::MultiWorkerMirrored ? 0.8 : 1.0;
            QVERIFY2(qAbs(p.calibration - factor) < 1e-9, qPrintable(strategyName(p.strategy)));
            QVERIFY(qAbs(p.samplesPerSecond - before.samplesPerSecond * factor) < 1e-6 * before.samplesPerSecond);
        }
        QCOMPARE(session.calibrationNote(),
                 QString("Calibrated by 1 finished run on this experiment's hosts: MultiWorkerMirrored x0.80 (1 run)."));
        std::optional<PlanRecord> stored;
        QVERIFY2(history.latestPlan(name, 0, &stored, &error), qPrintable(error));
        QCOMPARE(stored->id, session.storedPlanId());
        for (const PlannedThroughput& p : stored->predictions)
            QVERIFY(qAbs(p.calibration - (p.strategy == "MultiWorkerMirrored" ? 0.8 : 1.0)) < 1e-9);

        // Measured exactly as the calibrated plan said: the model was 0.8 off again, the factor stays.
        const qint64 next = addRun(history, name, QDateTime::currentSecsSinceEpoch() + 2);
        const double calibratedTwo = findPrediction(second, Strategy::MultiWorkerMirrored, 2).samplesPerSecond;
        const auto exact = checkRun(history, next, {Strategy::MultiWorkerMirrored, 2, calibratedTwo}, &error);
        QVERIFY2(exact, qPrintable(error));
        QVERIFY(qAbs(exact->error) < 1e-9);
        Calibration calibration;
        QVERIFY2(storedCalibration(history, &calibration, &error), qPrintable(error));
        QVERIFY(qAbs(calibrationFactor(calibration, Strategy::MultiWorkerMirrored, second.request.hostSet) - 0.8) < 1e-9);
        QCOMPARE(calibration.entries.size(), size_t(1));
        QCOMPARE(calibration.entries[0].runs, 2);
    }
};

QTEST_GUILESS_MAIN(TestPlanHistory)
#include "tst_plan_history.moc"
