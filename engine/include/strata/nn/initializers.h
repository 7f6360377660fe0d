#pragma once
// Keras' initializers, by name: glorot_uniform (Keras' default for kernels), zeros (biases),
// uniform (+-0.05, Embedding's default), orthogonal (recurrent kernels), ...

#include "strata/core/rng.h"
#include "strata/tensor/tensor.h"

#include <string>

namespace strata::nn {

// Fills `t` (a kernel laid out as Keras does: (..., fan_in, fan_out) with a receptive field
// in front for convolutions).
void initialize(Tensor& t, const std::string& initializer, Rng& rng);

} // namespace strata::nn
