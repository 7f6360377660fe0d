#include "strata/nn/metric.h"

#include "cuda/ops.h"
#include "nn/math/metric_math.h"
#include "strata/core/error.h"

namespace strata::nn {

namespace {

using math::MetricKind;

// Each metric is a running mean of nn/math's metricValue over units: rows for the categorical
// accuracies, outputs for the others. The same formula runs on the CPU and in the CUDA kernel.
class UnitMetric final : public Metric {
public:
    UnitMetric(std::string name, MetricKind kind, float threshold = 0.5f)
        : Metric(std::move(name)), m_kind(kind), m_threshold(threshold)
    {
    }
    void update(const Tensor& pred, const Tensor& target) override
    {
        const bool rowWise = m_kind == MetricKind::SparseCategoricalAccuracy || m_kind == MetricKind::CategoricalAccuracy;
        const int64_t width = pred.shape().back();
        const int64_t units = rowWise ? pred.numel() / width : pred.numel();
        const int64_t targetStride = m_kind == MetricKind::CategoricalAccuracy ? width : 1;
        if (target.numel() != units * targetStride)
            throw ShapeError("metric " + m_name + ": predictions " + pred.shape().str() + " and targets " +
                             target.shape().str() + " do not fit");
        if (!pred.device().isCpu()) {
            m_total += cuda::ops().metricSum(pred.device().index, m_kind, pred.data(), target.data(), units, width,
                                       m_threshold);
            m_count += static_cast<double>(units);
            return;
        }
        const float* p = pred.data();
        const float* t = target.data();
        for (int64_t i = 0; i < units; ++i)
            m_total += math::metricValue(m_kind, p + i * (rowWise ? width : 1), t + i * targetStride, width, m_threshold);
        m_count += static_cast<double>(units);
    }

private:
    MetricKind m_kind;
    float m_threshold;
};

} // namespace

std::unique_ptr<Metric> createMetric(const std::string& name, const schema::LossSpec& loss, bool logits)
{
    if (name == "mae")
        return std::make_unique<UnitMetric>("mae", MetricKind::MeanAbsoluteError);
    if (name == "mse")
        return std::make_unique<UnitMetric>("mse", MetricKind::MeanSquaredError);
    if (name != "accuracy")
        throw ConfigError("training.metrics", "unknown metric \"" + name + "\"");
    if (loss.type == "sparse_categorical_crossentropy")
        return std::make_unique<UnitMetric>("accuracy", MetricKind::SparseCategoricalAccuracy);
    if (loss.type == "categorical_crossentropy")
        return std::make_unique<UnitMetric>("accuracy", MetricKind::CategoricalAccuracy);
    // binary_crossentropy and mse: the output is a score per example; 0.5 on probabilities is
    // 0 on logits.
    return std::make_unique<UnitMetric>("accuracy", MetricKind::BinaryAccuracy, logits ? 0.0f : 0.5f);
}

} // namespace strata::nn
