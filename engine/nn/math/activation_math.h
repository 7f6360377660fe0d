#pragma once
// Activation formulas, shared by the CPU loops (nn/activation.cpp) and the CUDA kernels
// (cuda/activation_kernels.cu). Each elementwise activation is a struct with
// forward(x) and backward(y, dy) -> dx, given the forward's output y.

#include "strata/core/hd.h"

#include <cmath>
#include <cstdint>

namespace strata::nn::math {

struct Relu {
    STRATA_HD static float forward(float x) { return x > 0.0f ? x : 0.0f; }
    STRATA_HD static float backward(float y, float g) { return y > 0.0f ? g : 0.0f; }
};

struct Sigmoid {
    STRATA_HD static float forward(float x)
    {
        // Split by sign so exp never overflows.
        if (x >= 0)
            return 1.0f / (1.0f + std::exp(-x));
        const float e = std::exp(x);
        return e / (1.0f + e);
    }
    STRATA_HD static float backward(float y, float g) { return g * (y * (1.0f - y)); }
};

struct Tanh {
    STRATA_HD static float forward(float x) { return std::tanh(x); }
    STRATA_HD static float backward(float y, float g) { return g * (1.0f - y * y); }
};

// Softmax over one row, in place.
STRATA_HD inline void softmaxRow(float* row, int64_t cols)
{
    float m = row[0];
    for (int64_t j = 1; j < cols; ++j)
        m = row[j] > m ? row[j] : m;
    float sum = 0;
    for (int64_t j = 0; j < cols; ++j) {
        row[j] = std::exp(row[j] - m);
        sum += row[j];
    }
    const float inv = 1.0f / sum;
    for (int64_t j = 0; j < cols; ++j)
        row[j] *= inv;
}

// dx_j = y_j * (dy_j - sum_k dy_k y_k), in place over one row of dy.
STRATA_HD inline void softmaxBackwardRow(const float* y, float* g, int64_t cols)
{
    float dot = 0;
    for (int64_t j = 0; j < cols; ++j)
        dot += g[j] * y[j];
    for (int64_t j = 0; j < cols; ++j)
        g[j] = y[j] * (g[j] - dot);
}

} // namespace strata::nn::math
