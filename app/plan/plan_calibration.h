#pragma once
// The planner learning from real runs: the factor by which measured throughput differed from
// predicted, per (strategy, host set), as a running geometric mean over the runs (each run
// weighs the same; one outlier moves it by its share only). Pure functions; the caller stores
// the result (the run history keeps it in its database as JSON).

#include "app/plan/scaling_plan.h"

#include <nlohmann/json.hpp>

namespace strata::app::plan {

// The host set's key: the hosts sorted and joined by commas ("127.0.0.1").
QString hostSetKey(QStringList hosts);

// The factor for (strategy, host set): 1 when no run taught one.
double calibrationFactor(const Calibration& calibration, Strategy strategy, const QString& hostSet);

// `calibration` after one finished run whose throughput was `measuredSamplesPerSecond` where
// `prediction` (made without calibration, or with it: its own factor is taken out) said its own.
Calibration calibrated(Calibration calibration, const Prediction& prediction, const QString& hostSet,
                       double measuredSamplesPerSecond);

// The relative error of a prediction against a measurement: (predicted - measured) / measured.
double predictionError(double predictedSamplesPerSecond, double measuredSamplesPerSecond);

// Which (strategy, host set) factors `plan` applied, for people: "Calibrated by 3 finished runs
// on this experiment's hosts: MultiWorkerMirrored x0.93 (2 runs), ..."; empty when none applied.
QString calibrationNote(const ScalingPlan& plan, const Calibration& calibration);

// {"v":1,"entries":[{"strategy":"MultiWorkerMirrored","hosts":"127.0.0.1","factor":0.93,"runs":4}]}
nlohmann::ordered_json calibrationToJson(const Calibration& calibration);
// Entries it cannot read are skipped (an unknown strategy, a factor not positive).
Calibration calibrationFromJson(const nlohmann::json& json);

} // namespace strata::app::plan
