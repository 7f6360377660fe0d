#pragma once
// The affine core shared by Dense and Conv2D: rows of inputs times a kernel, plus a bias,
// through an activation (Conv2D's rows are im2col windows, Dense's are examples). Pointers
// are memory of the kernel's device, where the work runs.

#include "strata/nn/activation.h"
#include "strata/nn/layer.h"

namespace strata::nn::affine {

// out (rows x units) = activation(in (rows x width) . kernel (width x units) + bias).
void forward(const float* in, int64_t rows, int64_t width, const Parameter& kernel, const Parameter* bias,
             Activation activation, float* out);

// Given dL/d(out) in `gradOut` (turned into dL/d(pre-activation) in place) and the forward's
// `out`: writes the kernel and bias gradients and, when `gradIn` is not null, dL/d(in).
void backward(const float* in, int64_t rows, int64_t width, Parameter& kernel, Parameter* bias,
              Activation activation, const float* out, float* gradOut, float* gradIn);

} // namespace strata::nn::affine
