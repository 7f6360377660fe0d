#pragma once
// The skeleton every training loop shares (Trainer's; a ParameterServer coordinator's, which
// schedules its steps on workers): the experiment and where it reports, the epoch's running
// totals and metrics, the `start` and `epoch` events, checkpoint cadence and saving. A loop
// derives from it and adds how its steps run.

#include "run_reporter.h"
#include "strata/nn/loss_scale.h"
#include "strata/nn/optimizer.h"
#include "strata/rundir/checkpoint.h"
#include "strata/training/epoch_totals.h"
#include "strata/training/evaluator.h"
#include "strata/rundir/resume.h"
#include "strata/training/trainer.h"

#include <functional>
#include <optional>

namespace strata::run {

struct TrainingLoop {
    TrainingLoop(schema::Experiment experiment, const RunDirectory& runDir, EventSink& events, TrainerOptions options);

    schema::Experiment experiment;
    const RunDirectory& runDir;
    EventSink& events;
    TrainerOptions options;
    RunReporter reporter;
    CheckpointDirectory checkpoints;
    std::optional<Fingerprint> fingerprint; // what this run's checkpoints can be resumed by
    std::vector<std::unique_ptr<nn::Metric>> metrics; // the epoch's running training metrics
    EpochTotals epochTotals;
    int64_t stepsPerEpoch = 0;
    int64_t lastCheckpointStep = -1;
    nlohmann::ordered_json lastTrain, lastValidation; // the last epoch's (null: none yet)

    bool stopRequested() const { return options.stopRequested && options.stopRequested->load(); }
    void log(const std::string& level, const std::string& message) { reporter.log(level, message); }
    // The epoch so far: its mean loss, then each metric.
    schema::MetricValues epochMetrics() const;
    // The metrics' running values, as step events and records give them.
    nlohmann::ordered_json runningMetrics() const;
    // A new epoch's totals and metrics start from zero.
    void resetEpoch();
    // The `start` fields every loop knows; the caller adds its strategy, replicas, workers and
    // batch sizes.
    schema::StartEvent startEvent(const nn::Sequential& model, int64_t trainExamples, int64_t validationExamples,
                                int64_t testExamples, int64_t resumedFrom) const;
    // Ends epoch `epoch` at `step` after `seconds`: its training metrics, the validation metrics
    // when `validate` is given, the `epoch` event and progress line.
    void reportEpoch(int64_t epoch, int64_t step, double seconds, const std::function<Evaluation()>& validate);
    // A checkpoint is due once `epochsDone` epochs have ended at `step` (training.checkpoint).
    bool checkpointDueAtEpochEnd(int64_t epochsDone, int64_t step) const;
    // Saves a checkpoint at `position` (step, epoch, step in epoch, stream batch) with the
    // epoch's totals, the loss scale when there is one, the variables and optimizer state and
    // the fingerprint, and emits its event.
    void saveCheckpoint(Checkpoint position, const nn::Sequential& model, nn::Optimizer& optimizer,
                        const nn::LossScale* lossScale);
};

} // namespace strata::run
