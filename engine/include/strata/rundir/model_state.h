#pragma once
// Moving a model's weights and its optimizer's state into and out of a Checkpoint.

#include "strata/nn/optimizer.h"
#include "strata/nn/sequential.h"
#include "strata/rundir/checkpoint.h"

namespace strata::run {

// Copies of every weight (and, with an optimizer, its slots and iteration count).
void captureState(const nn::Sequential& model, nn::Optimizer* optimizer, Checkpoint& into);
// Loads weights (and optimizer state) by name. Throws ShapeError when the checkpoint belongs
// to another model (a missing variable or a different shape), naming it.
void restoreState(const Checkpoint& from, nn::Sequential& model, nn::Optimizer* optimizer, const std::string& source);

// The model's weights alone, as a checkpoint file at `path` (a run's model.weights).
void writeWeights(const nn::Sequential& model, int64_t step, const std::string& path);

// CRC-32 of every weight's bytes in order: equal on two processes exactly when their
// weights are bitwise equal (the `done` event reports it, so replicas can be compared).
uint32_t weightsChecksum(const nn::Sequential& model);

} // namespace strata::run
