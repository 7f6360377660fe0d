// Losses and metrics on the GPU: each row's (or output's) value computed by the shared
// nn/math formula, then summed on the host in order, as the CPU sums them.

#include "launch.cuh"
#include "nn/math/loss_math.h"
#include "nn/math/metric_math.h"
#include "cuda_ops.h"

#include <vector>

namespace strata::cuda {

namespace {
double hostSum(int device, const double* values, int64_t n)
{
    std::vector<double> host(static_cast<size_t>(n));
    download(device, host.data(), values, n);
    double sum = 0;
    for (double v : host)
        sum += v;
    return sum;
}
} // namespace

LossResult CudaOps::lossSum(int device, LossKind kind, bool logits, const float* pred, const float* target, int64_t rows,
                   int64_t width, float* grad, float scale, float perExample)
{
    namespace m = nn::math;
    LossResult result;
    const int64_t units = kind == LossKind::SparseCategoricalCrossentropy || kind == LossKind::CategoricalCrossentropy
                              ? rows
                              : rows * width;
    if (units == 0)
        return result;
    Scratch<double> values(device, units);
    double* v = values.get();
    switch (kind) {
    case LossKind::MeanSquaredError:
        forEach(device, units, [=] __device__(int64_t i) {
            v[i] = m::mseElement(pred[i], target[i], grad ? grad + i : nullptr, scale, perExample);
        }, "mse");
        break;
    case LossKind::BinaryCrossentropy:
        forEach(device, units, [=] __device__(int64_t i) {
            v[i] = m::binaryCrossentropyElement(pred[i], target[i], logits, grad ? grad + i : nullptr, scale,
                                                perExample);
        }, "binaryCrossentropy");
        break;
    case LossKind::CategoricalCrossentropy:
        forEach(device, units, [=] __device__(int64_t r) {
            v[r] = m::categoricalCrossentropyRow(pred + r * width, target + r * width, width, logits,
                                                 grad ? grad + r * width : nullptr, scale);
        }, "categoricalCrossentropy");
        break;
    case LossKind::SparseCategoricalCrossentropy:
        forEach(device, units, [=] __device__(int64_t r) {
            const float label = target[r];
            if (!m::isClassIndex(label, width)) {
                v[r] = nan("");
                return;
            }
            const auto l = static_cast<int64_t>(label);
            float* g = grad ? grad + r * width : nullptr;
            v[r] = logits ? m::sparseCrossentropyLogitsRow(pred + r * width, l, width, g, scale)
                          : m::sparseCrossentropyProbsRow(pred + r * width, l, width, g, scale);
        }, "sparseCategoricalCrossentropy");
        // A label outside the classes left NaN: find it on the host to name it.
        result.sum = hostSum(device, v, units);
        if (result.sum != result.sum) {
            std::vector<float> labels(static_cast<size_t>(rows));
            download(device, labels.data(), target, rows);
            for (float label : labels)
                if (!m::isClassIndex(label, width)) {
                    result.badLabel = true;
                    result.label = label;
                    break;
                }
        }
        return result;
    }
    result.sum = hostSum(device, v, units);
    return result;
}

double CudaOps::metricSum(int device, nn::math::MetricKind kind, const float* pred, const float* target, int64_t units,
                 int64_t width, float threshold)
{
    if (units == 0)
        return 0;
    Scratch<double> values(device, units);
    double* v = values.get();
    const bool rowWise =
        kind == nn::math::MetricKind::SparseCategoricalAccuracy || kind == nn::math::MetricKind::CategoricalAccuracy;
    const int64_t targetStride = kind == nn::math::MetricKind::CategoricalAccuracy ? width : 1;
    forEach(device, units, [=] __device__(int64_t i) {
        v[i] = nn::math::metricValue(kind, pred + i * (rowWise ? width : 1), target + i * targetStride, width,
                                     threshold);
    }, "metric");
    return hostSum(device, v, units);
}

} // namespace strata::cuda
