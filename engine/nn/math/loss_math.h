#pragma once
// The losses' per-row (or per-element) formulas with Keras semantics, shared by the CPU
// (nn/losses.cpp) and the CUDA kernels (cuda/loss_kernels.cu). Each returns that row's loss
// and, when `g` is not null, writes its gradient times `scale`.

#include "strata/core/hd.h"

#include <cmath>
#include <cstdint>

namespace strata::nn::math {

// Keras' backend epsilon: probabilities are clipped to [eps, 1 - eps] before the log.
constexpr float kEpsilon = 1e-7f;

template <typename T>
STRATA_HD T clampTo(T v, T lo, T hi)
{
    return v < lo ? lo : (hi < v ? hi : v);
}

// A float holding a class index in [0, classes).
STRATA_HD inline bool isClassIndex(float v, int64_t classes)
{
    return v >= 0 && v < static_cast<float>(classes) && v == std::floor(v);
}

STRATA_HD inline float rowMax(const float* z, int64_t n)
{
    float m = z[0];
    for (int64_t j = 1; j < n; ++j)
        m = z[j] > m ? z[j] : m;
    return m;
}

// Mean squared error, one element; `perExample` outputs make one example's mean.
STRATA_HD inline double mseElement(float p, float t, float* g, float scale, float perExample)
{
    const float d = p - t;
    if (g)
        *g = scale * 2.0f * d / perExample;
    return static_cast<double>(d) * d;
}

// Sparse categorical cross-entropy of one row of logits.
STRATA_HD inline double sparseCrossentropyLogitsRow(const float* z, int64_t label, int64_t n, float* g, float scale)
{
    const float m = rowMax(z, n);
    double s = 0;
    for (int64_t j = 0; j < n; ++j)
        s += std::exp(static_cast<double>(z[j] - m));
    const double lse = std::log(s) + m;
    if (g) {
        const double inv = 1.0 / s;
        for (int64_t j = 0; j < n; ++j)
            g[j] = scale * static_cast<float>(std::exp(static_cast<double>(z[j] - m)) * inv);
        g[label] -= scale;
    }
    return lse - z[label];
}

// Keras (TF backend) on probabilities: clip, then softmax cross-entropy of log(p),
// i.e. -log(p_y / sum p) with p clipped to [eps, 1 - eps].
STRATA_HD inline double sparseCrossentropyProbsRow(const float* p, int64_t label, int64_t n, float* g, float scale)
{
    double s = 0;
    for (int64_t j = 0; j < n; ++j)
        s += clampTo(p[j], kEpsilon, 1.0f - kEpsilon);
    const float py = clampTo(p[label], kEpsilon, 1.0f - kEpsilon);
    if (g) {
        for (int64_t j = 0; j < n; ++j) {
            const bool inside = p[j] > kEpsilon && p[j] < 1.0f - kEpsilon;
            const double d = 1.0 / s - (j == label ? 1.0 / py : 0.0);
            g[j] = inside ? scale * static_cast<float>(d) : 0.0f;
        }
    }
    return -std::log(py / s);
}

// Categorical cross-entropy of one row against (one-hot or soft) targets y.
STRATA_HD inline double categoricalCrossentropyRow(const float* z, const float* y, int64_t n, bool logits, float* g,
                                                   float scale)
{
    double tsum = 0;
    for (int64_t j = 0; j < n; ++j)
        tsum += y[j];
    double sum = 0;
    if (logits) {
        const float m = rowMax(z, n);
        double s = 0;
        for (int64_t j = 0; j < n; ++j)
            s += std::exp(static_cast<double>(z[j] - m));
        const double lse = std::log(s) + m;
        for (int64_t j = 0; j < n; ++j) {
            sum += y[j] * (lse - z[j]);
            if (g)
                g[j] = scale * static_cast<float>(std::exp(z[j] - m) / s * tsum - y[j]);
        }
        return sum;
    }
    // Keras: q = p / sum(p), clipped to [eps, 1 - eps], then -sum(y log q).
    // d/dz_k = -y_k / z_k + (sum of y_j over unclipped j) / s, clipped terms giving 0.
    double s = 0;
    for (int64_t j = 0; j < n; ++j)
        s += z[j];
    double insideY = 0;
    for (int64_t j = 0; j < n; ++j) {
        const double q = z[j] / s;
        sum -= y[j] * std::log(clampTo(q, double(kEpsilon), 1.0 - kEpsilon));
        if (q > kEpsilon && q < 1.0 - kEpsilon)
            insideY += y[j];
    }
    if (g) {
        for (int64_t j = 0; j < n; ++j) {
            const double q = z[j] / s;
            const bool inside = q > kEpsilon && q < 1.0 - kEpsilon;
            g[j] = scale * static_cast<float>((inside ? -y[j] / z[j] : 0.0) + insideY / s);
        }
    }
    return sum;
}

// Binary cross-entropy of one output; `perExample` outputs make one example's mean.
STRATA_HD inline double binaryCrossentropyElement(float z, float y, bool logits, float* g, float scale,
                                                  float perExample)
{
    if (logits) {
        // max(z, 0) - z y + log(1 + exp(-|z|)): stable for any z.
        const double loss = (z > 0.0f ? z : 0.0f) - z * y + std::log1p(std::exp(-std::fabs(z)));
        if (g) {
            const float s = z >= 0 ? 1.0f / (1.0f + std::exp(-z)) : std::exp(z) / (1.0f + std::exp(z));
            *g = scale * (s - y) / perExample;
        }
        return loss;
    }
    const float q = clampTo(z, kEpsilon, 1.0f - kEpsilon);
    if (g) {
        const bool inside = z > kEpsilon && z < 1.0f - kEpsilon;
        *g = inside ? scale * (q - y) / (q * (1.0f - q)) / perExample : 0.0f;
    }
    return -(y * std::log(q) + (1.0f - y) * std::log(1.0f - q));
}

} // namespace strata::nn::math
