#include "strata/nn/activation.h"

#include "strata/core/error.h"
#include "tensor/parallel.h"

#include <algorithm>
#include <cmath>

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
float sigmoid(float x)
{
    // Split by sign so exp never overflows.
    if (x >= 0)
        return 1.0f / (1.0f + std::exp(-x));
    const float e = std::exp(x);
    return e / (1.0f + e);
}
} // namespace

namespace {

// The kernels over a block of rows; cloned for AVX-512 and AVX2 (the engine otherwise builds
// for baseline x86-64).
__attribute__((target_clones("avx512f", "avx2", "default"))) void forwardRows(Activation a, float* __restrict v,
                                                                             int64_t rows, int64_t cols)
{
    const int64_t n = rows * cols;
    switch (a) {
    case Activation::Linear: return;
    case Activation::Relu:
        for (int64_t i = 0; i < n; ++i)
            v[i] = v[i] > 0.0f ? v[i] : 0.0f;
        return;
    case Activation::Sigmoid:
        for (int64_t i = 0; i < n; ++i)
            v[i] = sigmoid(v[i]);
        return;
    case Activation::Tanh:
        for (int64_t i = 0; i < n; ++i)
            v[i] = std::tanh(v[i]);
        return;
    case Activation::Softmax:
        for (int64_t r = 0; r < rows; ++r) {
            float* row = v + r * cols;
            const float m = *std::max_element(row, row + cols);
            float sum = 0;
            for (int64_t j = 0; j < cols; ++j) {
                row[j] = std::exp(row[j] - m);
                sum += row[j];
            }
            const float inv = 1.0f / sum;
            for (int64_t j = 0; j < cols; ++j)
                row[j] *= inv;
        }
        return;
    }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void
backwardRows(Activation a, const float* __restrict y, float* __restrict g, int64_t rows, int64_t cols)
{
    const int64_t n = rows * cols;
    switch (a) {
    case Activation::Linear: return;
    case Activation::Relu:
        for (int64_t i = 0; i < n; ++i)
            g[i] = y[i] > 0.0f ? g[i] : 0.0f;
        return;
    case Activation::Sigmoid:
        for (int64_t i = 0; i < n; ++i)
            g[i] *= y[i] * (1.0f - y[i]);
        return;
    case Activation::Tanh:
        for (int64_t i = 0; i < n; ++i)
            g[i] *= 1.0f - y[i] * y[i];
        return;
    case Activation::Softmax:
        // dx_j = y_j * (dy_j - sum_k dy_k y_k)
        for (int64_t r = 0; r < rows; ++r) {
            const float* yr = y + r * cols;
            float* gr = g + r * cols;
            float dot = 0;
            for (int64_t j = 0; j < cols; ++j)
                dot += gr[j] * yr[j];
            for (int64_t j = 0; j < cols; ++j)
                gr[j] = yr[j] * (gr[j] - dot);
        }
        return;
    }
}

} // namespace

void activationForward(Activation a, float* v, int64_t rows, int64_t cols)
{
    if (a == Activation::Linear)
        return;
    parallel::forRanges(rows, cols, [&](int64_t begin, int64_t end) {
        forwardRows(a, v + begin * cols, end - begin, cols);
    });
}

void activationBackward(Activation a, const float* y, float* g, int64_t rows, int64_t cols)
{
    if (a == Activation::Linear)
        return;
    parallel::forRanges(rows, cols, [&](int64_t begin, int64_t end) {
        backwardRows(a, y + begin * cols, g + begin * cols, end - begin, cols);
    });
}

} // namespace strata::nn
