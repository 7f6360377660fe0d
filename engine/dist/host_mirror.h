#pragma once
// HostMirror: a GPU strategy's variables and optimizer state as host tensors, for what reads
// them on the host (checkpoints, evaluation, predictions: Strategy::model()/optimizer()).
// pull() copies the device state in when it is asked for; push() sends a restored one back.
// Owned by the strategy; used on the trainer's thread.

#include "strata/nn/optimizer.h"
#include "strata/nn/sequential.h"
#include "strata/spec/experiment.h"

#include <memory>

namespace strata::dist {

class HostMirror {
public:
    // A host model like the replicas' (same spec, seed and fused output activation) and an
    // optimizer like theirs.
    HostMirror(const spec::Experiment& experiment, std::unique_ptr<nn::Optimizer> optimizer);

    // `model`'s variables and `optimizer`'s state, copied to the host; returns the host model.
    nn::Sequential& pull(nn::Sequential& model, nn::Optimizer& optimizer);
    // The host optimizer, with the state of the last pull().
    nn::Optimizer& optimizer() { return *m_optimizer; }
    // The host state (a restored checkpoint) into `model` and `optimizer`.
    void push(nn::Sequential& model, nn::Optimizer& optimizer);

private:
    nn::Sequential m_model;
    std::unique_ptr<nn::Optimizer> m_optimizer;
};

} // namespace strata::dist
