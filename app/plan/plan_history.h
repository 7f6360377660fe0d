#pragma once
// The planner checked against real runs, kept in the run history (schema version 4): a plan is
// stored per experiment when it is made; when a run of that experiment finishes, the newest
// plan made before the run started gives the prediction for the run's strategy and worker
// count, which is recorded beside the run's measured steady-state throughput and the error;
// the calibration (plan_calibration.h) learns from it and is kept in the same database, so the
// next plan applies it. A run is checked once.
//
// Threads: the history's. Every function answers through `error` (empty when nothing failed).

#include "app/history/run_history.h"
#include "app/metrics/metrics_store.h"
#include "app/plan/scaling_plan.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace strata::app::plan {

// The name an experiment's runs are recorded by (RunRecord::name).
QString experimentName(const nlohmann::ordered_json& experiment);

// Stores `plan` as the newest of `probed` (the experiment document it was made for, by its
// name), for its hosts (plan.request.hostSet, the calibration's key), with the probe's lines and
// that document, from which restoredPlan remakes it; its record.
std::optional<PlanRecord> storePlan(RunHistory& history, const ScalingPlan& plan, const nlohmann::ordered_json& probed,
                                    QString* error);

// The plan a stored record was made from, remade with `calibration`: none for a plan stored
// without the probe's lines (before they were kept, or made by hand); throws
// std::runtime_error for lines that cannot be read.
std::optional<ScalingPlan> restoredPlan(const PlanRecord& record, const Calibration& calibration);

// The calibration the history keeps (empty when no run taught one yet); false on failure.
bool storedCalibration(const RunHistory& history, Calibration* calibration, QString* error);

// What a finished run measured, as the planner counts it: the strategy that trained, its workers
// (replicas under OneDevice, Mirrored and CentralStorage; worker tasks computing steps under
// MultiWorkerMirrored and ParameterServer) and its steady-state samples/s (summarizeRun's, the
// Compare page's figure). None when the run reported no steady throughput or no known strategy.
struct MeasuredRun {
    Strategy strategy = Strategy::OneDevice;
    int workers = 1;
    double samplesPerSecond = 0;
};
std::optional<MeasuredRun> measuredRun(const MetricsStore& store);

// Checks the finished run `runId` against the newest plan of its experiment made before it
// started: records the prediction, the measurement and the error, and the calibration updated by
// them. None with `error` empty when there is nothing to check against (no plan, or none
// predicting the run's strategy and worker count) or the run was checked already.
std::optional<RunPrediction> checkRun(RunHistory& history, qint64 runId, const MeasuredRun& measured,
                                      QString* error);

// `strata run`'s check of its finished run (app::FinishedRunCheck): "Against the plan: predicted
// N/s, measured M/s (error +x%)", why it could not be checked, or empty (nothing to check against).
QString againstThePlan(RunHistory& history, qint64 runId, const MetricsStore& store);

} // namespace strata::app::plan
