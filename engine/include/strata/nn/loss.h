#pragma once
// Losses with Keras semantics (reduction: mean over the batch). A loss returns the *sum* of
// per-example losses and writes dL/dpred scaled by `gradScale`, so that a replica computing
// a slice of a global batch passes 1 / global_batch and the gradients add up exactly.

#include "strata/schema/experiment.h"
#include "strata/tensor/tensor.h"

#include <memory>

namespace strata::nn {

class Loss {
public:
    virtual ~Loss() = default;
    // Sum over the batch of the per-example loss. When `grad` is given it receives
    // gradScale * d(sum)/d(pred), with pred's shape.
    virtual double compute(const Tensor& pred, const Tensor& target, Tensor* grad, float gradScale) const = 0;
    virtual const char* name() const = 0;
    // True when predictions are logits (raw scores) rather than probabilities.
    virtual bool fromLogits() const { return false; }
};

// `fromLogits` overrides the spec's flag (the model sets it when it computes the loss on
// the logits of a softmax/sigmoid output layer).
std::unique_ptr<Loss> createLoss(const schema::LossSpec& spec, bool fromLogits);

} // namespace strata::nn
