#pragma once
// The engine's `plan-probe` output (JSON Lines, docs/event-schema.md "Planner probe") as a
// ProbeResult, and the request an experiment makes of the planner. Pure functions.

#include "app/plan/scaling_plan.h"

#include <nlohmann/json.hpp>

namespace strata::app::plan {

// From the probe's lines (its `hello`, `probe_compute`, `probe_collective`, `probe_ps`
// events); throws std::runtime_error naming what is missing, or the probe's own `error` event.
ProbeResult probeFromEvents(const QStringList& lines);

// What the experiment document asks of the planner: its strategy, hosts, threads, ps tasks
// and partitioner's busiest share, batch and bucket size; the worker counts from
// defaultWorkerCounts. Throws std::runtime_error when it is not an experiment.
PlanRequest requestFor(const nlohmann::json& experiment, const ProbeResult& probe);

// The plan as JSON (`strata plan --json`, and what the history stores beside a run).
nlohmann::ordered_json planToJson(const ScalingPlan& plan);

} // namespace strata::app::plan
