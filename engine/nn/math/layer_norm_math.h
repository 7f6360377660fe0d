#pragma once
// Layer normalization of one row (the last axis of one example), shared by the CPU loops
// (nn/layer_normalization.cpp) and the CUDA kernels (cuda/layer_norm_kernels.cu):
// y = (x - mean) / sqrt(var + epsilon) * gamma + beta, var the population variance, as Keras.

#include "strata/core/hd.h"

#include <cmath>
#include <cstdint>

namespace strata::nn::math {

// Writes xhat = (x - mean) * invStd and y = xhat * gamma + beta (gamma null: 1, beta null: 0);
// returns invStd = 1 / sqrt(var + epsilon).
STRATA_HD inline float layerNormRow(const float* x, int64_t width, float epsilon, const float* gamma,
                                    const float* beta, float* xhat, float* y)
{
    float mean = 0;
    for (int64_t j = 0; j < width; ++j)
        mean += x[j];
    mean /= static_cast<float>(width);
    float var = 0;
    for (int64_t j = 0; j < width; ++j)
        var += (x[j] - mean) * (x[j] - mean);
    var /= static_cast<float>(width);
    const float invStd = 1.0f / std::sqrt(var + epsilon);
    for (int64_t j = 0; j < width; ++j) {
        const float h = (x[j] - mean) * invStd;
        xhat[j] = h;
        y[j] = h * (gamma ? gamma[j] : 1.0f) + (beta ? beta[j] : 0.0f);
    }
    return invStd;
}

// dx from dy: with g = dy * gamma, dx = invStd * (g - mean(g) - xhat * mean(g * xhat)).
STRATA_HD inline void layerNormBackwardRow(const float* xhat, float invStd, const float* gamma, const float* dy,
                                           int64_t width, float* dx)
{
    float sum = 0, dot = 0;
    for (int64_t j = 0; j < width; ++j) {
        const float g = dy[j] * (gamma ? gamma[j] : 1.0f);
        sum += g;
        dot += g * xhat[j];
    }
    const float n = static_cast<float>(width);
    const float meanG = sum / n, meanGx = dot / n;
    for (int64_t j = 0; j < width; ++j)
        dx[j] = invStd * (dy[j] * (gamma ? gamma[j] : 1.0f) - meanG - xhat[j] * meanGx);
}

} // namespace strata::nn::math
