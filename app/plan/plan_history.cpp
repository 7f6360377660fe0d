#include "app/plan/plan_history.h"

#include "app/compare/comparison.h"
#include "app/plan/plan_calibration.h"
#include "app/plan/probe_result.h"
#include "app/plan/scaling_model.h"

#include <QCoreApplication>
#include <QDateTime>

namespace strata::app::plan {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("PlanHistory", text); }

bool countsReplicas(Strategy s)
{
    return s == Strategy::OneDevice || s == Strategy::Mirrored || s == Strategy::CentralStorage;
}

} // namespace

QString experimentName(const nlohmann::ordered_json& experiment)
{
    // As RunRecorder names a run.
    return QString::fromStdString(experiment.value("name", std::string("experiment")));
}

std::optional<PlanRecord> storePlan(RunHistory& history, const ScalingPlan& plan, const nlohmann::ordered_json& probed,
                                    QString* error)
{
    PlanRecord record;
    record.experiment = experimentName(probed);
    record.hosts = plan.request.hostSet;
    record.madeAt = QDateTime::currentSecsSinceEpoch();
    nlohmann::ordered_json json = planToJson(plan);
    json["probed_experiment"] = probed;
    json["probe_events"] = nlohmann::ordered_json::array();
    for (const QString& line : plan.probe.events)
        json["probe_events"].push_back(nlohmann::ordered_json::parse(line.toStdString(), nullptr, false));
    record.plan = QString::fromStdString(json.dump());
    for (const Prediction& p : plan.predictions)
        record.predictions.push_back({strategyName(p.strategy), p.workers, p.samplesPerSecond, p.calibration});
    if (!history.insertPlan(record, error))
        return std::nullopt;
    return record;
}

std::optional<ScalingPlan> restoredPlan(const PlanRecord& record, const Calibration& calibration)
{
    const nlohmann::json json = nlohmann::json::parse(record.plan.toStdString(), nullptr, false);
    if (!json.is_object() || !json.contains("probe_events") || json["probe_events"].empty() ||
        !json.contains("probed_experiment") || !json["probed_experiment"].is_object())
        return std::nullopt;
    QStringList lines;
    for (const auto& event : json["probe_events"])
        lines << QString::fromStdString(event.dump());
    const ProbeResult probe = probeFromEvents(lines);
    return planScaling(probe, requestFor(json["probed_experiment"], probe), calibration);
}

bool storedCalibration(const RunHistory& history, Calibration* calibration, QString* error)
{
    *calibration = {};
    QString text;
    if (!history.calibration(&text, error))
        return false;
    if (text.isEmpty())
        return true;
    const nlohmann::json json = nlohmann::json::parse(text.toStdString(), nullptr, false);
    if (json.is_discarded()) {
        *error = tr("The planner's calibration in the run history %1 is not JSON; it is ignored until a run replaces it.")
                     .arg(history.path());
        return false;
    }
    *calibration = calibrationFromJson(json);
    return true;
}

std::optional<MeasuredRun> measuredRun(const MetricsStore& store)
{
    const RunSummary summary = summarizeRun(ComparedRun{&store, QString()}, CompareOptions{});
    const std::optional<Strategy> strategy = strategyNamed(summary.strategy);
    if (!strategy || !summary.samplesPerSec || !(*summary.samplesPerSec > 0))
        return std::nullopt;
    MeasuredRun run;
    run.strategy = *strategy;
    run.workers = countsReplicas(*strategy) ? std::max(summary.replicas, 1) : std::max(summary.workers, 1);
    run.samplesPerSecond = *summary.samplesPerSec;
    return run;
}

std::optional<RunPrediction> checkRun(RunHistory& history, qint64 runId, const MeasuredRun& measured,
                                      QString* error)
{
    error->clear();
    const std::optional<RunRecord> run = history.run(runId, error);
    if (!run)
        return std::nullopt;
    if (run->prediction)
        return std::nullopt;
    std::optional<PlanRecord> plan;
    if (!history.latestPlan(run->name, run->startedAt, &plan, error) || !plan)
        return std::nullopt;
    const QString strategy = strategyName(measured.strategy);
    const auto planned = std::find_if(plan->predictions.begin(), plan->predictions.end(), [&](const PlannedThroughput& p) {
        return p.strategy == strategy && p.workers == measured.workers;
    });
    if (planned == plan->predictions.end() || !(planned->samplesPerSec > 0))
        return std::nullopt;

    Calibration calibration;
    if (!storedCalibration(history, &calibration, error))
        calibration = {}; // an unreadable calibration starts again from this run
    Prediction prediction;
    prediction.strategy = measured.strategy;
    prediction.workers = measured.workers;
    prediction.samplesPerSecond = planned->samplesPerSec;
    prediction.calibration = planned->calibration;
    calibration = calibrated(std::move(calibration), prediction, plan->hosts, measured.samplesPerSecond);

    RunPrediction recorded{plan->id, planned->samplesPerSec, measured.samplesPerSecond,
                           predictionError(planned->samplesPerSec, measured.samplesPerSecond)};
    error->clear();
    if (!history.recordPrediction(runId, recorded, QString::fromStdString(calibrationToJson(calibration).dump()), error))
        return std::nullopt;
    return recorded;
}

QString againstThePlan(RunHistory& history, qint64 runId, const MetricsStore& store)
{
    const std::optional<MeasuredRun> measured = measuredRun(store);
    if (!measured)
        return {};
    QString error;
    if (const std::optional<RunPrediction> p = checkRun(history, runId, *measured, &error))
        return tr("Against the plan: %1").arg(predictionText(*p));
    return error.isEmpty() ? QString() : tr("Not checked against the plan: %1").arg(error);
}

} // namespace strata::app::plan
