#pragma once
// SidecarEvaluator: the evaluator task of a multi-worker job (Keras' SidecarEvaluator). It
// trains nothing: it watches the chief's checkpoints in the run directory and evaluates each
// newest one as it appears (on the test split, else the validation part of the training
// data), emitting an `evaluation` event per checkpoint. It ends when the chief writes the
// job's final weights (model.weights), after evaluating them, or when asked to stop.
//
// It reads the run directory the chief writes: it must run where that directory is visible
// (this machine for a local cluster).

#include "strata/report/event_sink.h"
#include "strata/rundir/run_directory.h"
#include "strata/schema/experiment.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <string>

namespace strata::run {

struct SidecarOptions {
    const std::atomic<bool>* stopRequested = nullptr;
    std::chrono::milliseconds poll{200}; // how often the checkpoint directory is looked at
    // How long a chief's task record that has already ended when first seen must stay so
    // before it counts: a resumed job's chief replaces its previous session's record.
    std::chrono::milliseconds staleRecordGrace{30000};
    // The launch this evaluator belongs to (`start --launch`): the chief's record of the same
    // launch is this job's at once, and final weights written since that session began are
    // this job's even when they were there before the evaluator looked (a chief that trained
    // faster than the evaluator started). Empty: neither is known.
    std::string launch;
};

// Runs until the final weights are evaluated or a stop is requested; returns the `done`
// event's fields (also emitted). Throws ConfigError when there is nothing to evaluate on.
nlohmann::ordered_json runSidecarEvaluator(schema::Experiment experiment, const RunDirectory& runDir, EventSink& events,
                                           SidecarOptions options);

} // namespace strata::run
