#pragma once
// What a run is doing now, as the dashboard's progress bar and state say it: nothing yet,
// starting (no step yet), training, evaluating (every training task has run its last step and
// not yet ended: the final validation and test evaluation), or how it ended. Read from the
// store and the run's outcome, so a failed run never reads "waiting" and a completed one never
// reads "training".

#include "app/metrics/run_outcome.h"

#include <QString>

namespace strata::app {

enum class RunPhase { NoRun, Starting, Training, Evaluating, Completed, Stopped, Failed };

struct RunStatus {
    RunPhase phase = RunPhase::NoRun;
    int64_t step = 0, totalSteps = 0;
    double fraction = 0; // 0..1 of the steps
    QString text;        // "step 120 / 1875", "evaluating the test set", "failed at step 120 / 1875"
};

// `outcome`: RunController::outcome() for a live run, endedOutcome() for a finished one.
RunStatus runStatus(const MetricsStore& store, RunOutcome outcome);
QString phaseName(RunPhase phase);

} // namespace strata::app
