#pragma once
// Activation functions applied along the last axis of a row-major buffer.

#include "strata/core/device.h"
#include "strata/nn/activation_kind.h"

#include <cstdint>
#include <string>

namespace strata::nn {

Activation parseActivation(const std::string& name);
const char* activationName(Activation a);

// y = f(x) in place over `rows` rows of `cols` values (softmax normalizes each row), in the
// memory of `device`.
void activationForward(Activation a, float* values, int64_t rows, int64_t cols, Device device = Device::cpu());
// Turns dL/dy into dL/dx in place, given the activation's output y.
void activationBackward(Activation a, const float* y, float* grad, int64_t rows, int64_t cols,
                        Device device = Device::cpu());

} // namespace strata::nn
