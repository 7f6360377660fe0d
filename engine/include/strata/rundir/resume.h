#pragma once
// Where a run's training starts in its run directory (the chief's, or the ParameterServer
// coordinator's, decision; the other tasks take its variables and position):
// - Resume (the default): from the newest intact checkpoint when the experiment is the one
//   that wrote it (same fingerprint, rundir/resume_fingerprint.h); one that differs is refused
//   with a ResumeError naming every differing field and the choices below. A checkpoint
//   written before fingerprints existed is resumed with a warning. No checkpoint: from
//   training.initial_weights, else the initializers.
// - Fresh (--fresh): from the beginning; the earlier run's checkpoints, final weights and
//   experiment copy are moved into set-aside-<date>-<time>/ of the run directory, not deleted.
// - WeightsOnly (--weights-only): the newest checkpoint's weights, with a fresh optimizer and
//   position; refused when the model's variables do not fit them (naming the layer). The
//   earlier state is set aside as for Fresh.

#include "strata/nn/optimizer.h"
#include "strata/nn/sequential.h"
#include "strata/rundir/checkpoint.h"
#include "strata/rundir/run_directory.h"
#include "strata/schema/experiment.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

namespace strata::run {

enum class ResumeChoice { Resume, Fresh, WeightsOnly };

// The experiment's fingerprint, computed once, when first needed (it reads the data files).
class Fingerprint {
public:
    Fingerprint(const schema::Experiment& experiment, int64_t replicas) : m_experiment(&experiment), m_replicas(replicas) {}
    const nlohmann::ordered_json& get();

private:
    const schema::Experiment* m_experiment;
    int64_t m_replicas;
    std::optional<nlohmann::ordered_json> m_value;
};

struct StartingPoint {
    std::optional<Checkpoint> resumed; // the model and the optimizer hold its state
    bool weightsLoaded = false;        // the weights came from a file: initial weights, or a checkpoint's alone
};

using LogFunction = std::function<void(const std::string& level, const std::string& message)>;

// Sets `model` and `optimizer` as `choice` asks (see above) and says what was done through
// `log`. Throws ResumeError (a refused resume), ShapeError, DataError, IoError.
StartingPoint startTraining(const RunDirectory& runDir, ResumeChoice choice, Fingerprint& fingerprint,
                            const schema::Experiment& experiment, nn::Sequential& model, nn::Optimizer& optimizer,
                            const LogFunction& log);

// Moves the run's training state (checkpoints/, model.weights, experiment.strata.json), where
// present, into a new set-aside-<date>-<time>/ of the run directory and returns its path;
// empty when there was nothing to move.
std::string setAsideTrainingState(const RunDirectory& runDir);

} // namespace strata::run
