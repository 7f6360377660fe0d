#pragma once
// The metrics' per-row values, shared by the CPU (nn/metrics.cpp) and the CUDA kernels
// (cuda/metric_kernels.cu).

#include "strata/core/hd.h"

#include <cmath>
#include <cstdint>

namespace strata::nn::math {

// The first index of the row's largest value (as std::max_element).
STRATA_HD inline int64_t argmaxRow(const float* row, int64_t n)
{
    int64_t best = 0;
    for (int64_t j = 1; j < n; ++j)
        if (row[j] > row[best])
            best = j;
    return best;
}

enum class MetricKind { SparseCategoricalAccuracy, CategoricalAccuracy, BinaryAccuracy, MeanAbsoluteError,
                        MeanSquaredError };

// The value one unit adds to the metric's total: a row for the categorical accuracies (the
// target row is one label, or `width` one-hot values), one output for the others.
STRATA_HD inline double metricValue(MetricKind kind, const float* pred, const float* target, int64_t width,
                                    float threshold)
{
    switch (kind) {
    case MetricKind::SparseCategoricalAccuracy:
        return argmaxRow(pred, width) == static_cast<int64_t>(target[0]) ? 1.0 : 0.0;
    case MetricKind::CategoricalAccuracy:
        return argmaxRow(pred, width) == argmaxRow(target, width) ? 1.0 : 0.0;
    case MetricKind::BinaryAccuracy:
        return (pred[0] > threshold) == (target[0] > 0.5f) ? 1.0 : 0.0;
    case MetricKind::MeanAbsoluteError: {
        const double d = pred[0] - target[0];
        return std::fabs(d);
    }
    case MetricKind::MeanSquaredError: {
        const double d = pred[0] - target[0];
        return d * d;
    }
    }
    return 0.0;
}

} // namespace strata::nn::math
