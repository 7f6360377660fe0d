#pragma once
// HostMirror: a GPU strategy's variables and optimizer state as host tensors, for what reads
// them on the host (checkpoints, evaluation, predictions: Strategy::model()/optimizer()).
// pull() copies the device state in when a step has changed it since; push() sends a host
// state (a restored checkpoint) to the device. Between steps the host copy is what the user
// sees: a restored checkpoint stays in it until the next step. Owned by the strategy; used
// on the trainer's thread.

#include "strata/nn/optimizer.h"
#include "strata/nn/sequential.h"
#include "strata/schema/experiment.h"

#include <memory>

namespace strata::distribute {

class HostMirror {
public:
    // A host model like the replicas' (same spec, seed and fused output activation) and an
    // optimizer like theirs.
    HostMirror(const schema::Experiment& experiment, std::unique_ptr<nn::Optimizer> optimizer);

    // The host model, with `model`'s variables and `optimizer`'s state copied in if a step
    // changed them since the last pull() or push().
    nn::Sequential& pull(nn::Sequential& model, nn::Optimizer& optimizer);
    // A step changed the device state.
    void markStale() { m_stale = true; }
    // The host optimizer, with the state of the last pull() or push().
    nn::Optimizer& optimizer() { return *m_optimizer; }
    // The host state (a restored checkpoint) into `model` and `optimizer`.
    void push(nn::Sequential& model, nn::Optimizer& optimizer);

private:
    nn::Sequential m_model;
    std::unique_ptr<nn::Optimizer> m_optimizer;
    bool m_stale = true;
};

} // namespace strata::distribute
