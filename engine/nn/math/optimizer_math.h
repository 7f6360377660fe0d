#pragma once
// One element's update of each optimizer (Keras' rules), shared by the CPU loops
// (nn/optimizers.cpp) and the CUDA kernels (cuda/optimizer_kernels.cu).

#include "strata/core/hd.h"

#include <cmath>

namespace strata::nn::math {

// Keras SGD: v = momentum * v - lr * g; w += v (Nesterov: w += momentum * v - lr * g).
struct SgdStep {
    float lr, momentum;
    bool nesterov;
    STRATA_HD void operator()(float& w, float g) const { w -= lr * g; }
    STRATA_HD void operator()(float& w, float g, float& v) const
    {
        v = momentum * v - lr * g;
        w += nesterov ? momentum * v - lr * g : v;
    }
};

// Keras Adam, with alpha = lr * sqrt(1 - b2^t) / (1 - b1^t) computed once per step.
struct AdamStep {
    float alpha, beta1, beta2, epsilon;
    STRATA_HD void operator()(float& w, float g, float& m, float& v) const
    {
        m = beta1 * m + (1 - beta1) * g;
        v = beta2 * v + (1 - beta2) * g * g;
        w -= alpha * m / (std::sqrt(v) + epsilon);
    }
};

// Keras RMSprop: v = rho v + (1 - rho) g^2; centered: mg = rho mg + (1 - rho) g, denominator
// v - mg^2; step = lr g / sqrt(denominator + eps); with momentum: m = momentum m + step.
// `mom` and `mg` are null when the optimizer has no such slot.
struct RmsPropStep {
    float rho, lr, epsilon, momentum;
    STRATA_HD void operator()(float& w, float g, float& v, float* mom, float* mg) const
    {
        v = rho * v + (1 - rho) * g * g;
        float denominator = v;
        if (mg) {
            *mg = rho * *mg + (1 - rho) * g;
            denominator -= *mg * *mg;
        }
        const float increment = lr * g / std::sqrt(denominator + epsilon);
        if (mom) {
            *mom = momentum * *mom + increment;
            w -= *mom;
        } else {
            w -= increment;
        }
    }
};

} // namespace strata::nn::math
