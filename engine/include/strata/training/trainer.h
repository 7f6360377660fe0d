#pragma once
// Trainer: Keras' fit + evaluate for one experiment in one run directory, with
// BackupAndRestore semantics: a rerun in the same directory resumes from the newest intact
// checkpoint and ends with the same weights as an uninterrupted run (a different experiment is
// refused unless it starts fresh or takes the weights only: rundir/resume.h).
//
// Under a multi-worker strategy every task runs a Trainer in lockstep: each reads its shard
// of every global batch, the chief (rank 0) alone writes checkpoints, the summary and the
// weights, and a resumed job takes the chief's checkpoint, broadcast to every worker.

#include "strata/distribute/strategy.h"
#include "strata/report/event_sink.h"
#include "strata/report/progress_bar.h"
#include "strata/rundir/resume.h"
#include "strata/rundir/run_directory.h"
#include "strata/schema/experiment.h"

#include <atomic>
#include <memory>

namespace strata::run {

struct TrainerOptions {
    // Set (e.g. from a SIGTERM handler) to stop after the current step with a checkpoint.
    const std::atomic<bool>* stopRequested = nullptr;
    // Live `step` events are windowed means over this many seconds.
    double eventIntervalSeconds = 0.1;
    // `device` events (utilization, memory) at most this often.
    double deviceIntervalSeconds = 1.0;
    ProgressBar* progress = nullptr;
    // Which task of the cluster this is, and the job's token (multi-worker strategies).
    distribute::TaskContext task;
    // Where training starts when the run directory holds checkpoints (rundir/resume.h); only the
    // task that writes them (the chief, the ParameterServer coordinator) decides.
    ResumeChoice resume = ResumeChoice::Resume;
    // Each step record carries the step's timeline (`trace`, strata/report/step_trace.h);
    // false: none (bench/ compares the two).
    bool traceSteps = true;
};

class Trainer {
public:
    Trainer(schema::Experiment experiment, const RunDirectory& runDir, EventSink& events, TrainerOptions options);
    ~Trainer();
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    // Trains, evaluates on the test split and returns the `done` event's fields (also emitted).
    // Throws strata::Error subclasses (DataError, ShapeError, NumericError, IoError...).
    nlohmann::ordered_json run();

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace strata::run
