#pragma once
// How a run ended, read from what its tasks reported: for the live run (RunController) and
// for one rebuilt from its directory alike.

#include "app/metrics/metrics_store.h"

#include <QString>

namespace strata::app {

enum class RunOutcome { None, Running, Completed, Stopped, Failed };

// The outcome of a run whose tasks have all ended: Failed when any task failed (or ended
// without saying how, or there is none), else Stopped when any was stopped, else Completed.
RunOutcome endedOutcome(const MetricsStore& store);
// One line per task, joined: "worker:0 completed: test loss 0.3420, accuracy 0.8759",
// "worker:0 failed: <why>", "worker:0 stopped at step 900 (checkpoint saved)"; more than three
// tasks that ended alike in one: "64 tasks (worker:0 … worker:63) completed: test loss 0.0037".
QString outcomeSummary(const MetricsStore& store);
QString outcomeName(RunOutcome outcome);
// The task a run's figures come from: chief:0, else worker:0, else the first; null when
// there is none.
const TaskData* primaryTask(const std::vector<TaskData>& tasks);

} // namespace strata::app
