#include "strata/nn/activation.h"

#include "cuda/ops.h"
#include "nn/math/activation_math.h"
#include "strata/core/error.h"
#include "tensor/parallel.h"

namespace strata::nn {

Activation parseActivation(const std::string& name)
{
    if (name == "linear")
        return Activation::Linear;
    if (name == "relu")
        return Activation::Relu;
    if (name == "sigmoid")
        return Activation::Sigmoid;
    if (name == "tanh")
        return Activation::Tanh;
    if (name == "softmax")
        return Activation::Softmax;
    throw ConfigError("", "unknown activation \"" + name + "\"");
}

const char* activationName(Activation a)
{
    switch (a) {
    case Activation::Linear: return "linear";
    case Activation::Relu: return "relu";
    case Activation::Sigmoid: return "sigmoid";
    case Activation::Tanh: return "tanh";
    case Activation::Softmax: return "softmax";
    }
    return "linear";
}

namespace {

template <typename F>
void forwardEach(float* __restrict v, int64_t n)
{
    for (int64_t i = 0; i < n; ++i)
        v[i] = F::forward(v[i]);
}

template <typename F>
void backwardEach(const float* __restrict y, float* __restrict g, int64_t n)
{
    for (int64_t i = 0; i < n; ++i)
        g[i] = F::backward(y[i], g[i]);
}

// The loops over a block of rows; cloned for AVX-512 and AVX2 (the engine otherwise builds
// for baseline x86-64). The formulas are nn/math's, which the CUDA kernels run too.
__attribute__((target_clones("avx512f", "avx2", "default"))) void forwardRows(Activation a, float* __restrict v,
                                                                             int64_t rows, int64_t cols)
{
    const int64_t n = rows * cols;
    switch (a) {
    case Activation::Linear: return;
    case Activation::Relu: return forwardEach<math::Relu>(v, n);
    case Activation::Sigmoid: return forwardEach<math::Sigmoid>(v, n);
    case Activation::Tanh: return forwardEach<math::Tanh>(v, n);
    case Activation::Softmax:
        for (int64_t r = 0; r < rows; ++r)
            math::softmaxRow(v + r * cols, cols);
        return;
    }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void
backwardRows(Activation a, const float* __restrict y, float* __restrict g, int64_t rows, int64_t cols)
{
    const int64_t n = rows * cols;
    switch (a) {
    case Activation::Linear: return;
    case Activation::Relu: return backwardEach<math::Relu>(y, g, n);
    case Activation::Sigmoid: return backwardEach<math::Sigmoid>(y, g, n);
    case Activation::Tanh: return backwardEach<math::Tanh>(y, g, n);
    case Activation::Softmax:
        for (int64_t r = 0; r < rows; ++r)
            math::softmaxBackwardRow(y + r * cols, g + r * cols, cols);
        return;
    }
}

} // namespace

void activationForward(Activation a, float* v, int64_t rows, int64_t cols, Device device)
{
    if (a == Activation::Linear)
        return;
    if (!device.isCpu())
        return cuda::ops().activationForward(device.index, a, v, rows, cols);
    parallel::forRanges(rows, cols, [&](int64_t begin, int64_t end) {
        forwardRows(a, v + begin * cols, end - begin, cols);
    });
}

void activationBackward(Activation a, const float* y, float* g, int64_t rows, int64_t cols, Device device)
{
    if (a == Activation::Linear)
        return;
    if (!device.isCpu())
        return cuda::ops().activationBackward(device.index, a, y, g, rows, cols);
    parallel::forRanges(rows, cols, [&](int64_t begin, int64_t end) {
        backwardRows(a, y + begin * cols, g + begin * cols, end - begin, cols);
    });
}

} // namespace strata::nn
