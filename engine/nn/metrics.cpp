#include "strata/nn/metric.h"

#include "strata/core/error.h"

#include <algorithm>
#include <cmath>

namespace strata::nn {

namespace {

int64_t argmax(const float* row, int64_t n) { return std::max_element(row, row + n) - row; }

// Fraction of rows whose largest output is the label (sparse labels).
class SparseCategoricalAccuracy final : public Metric {
public:
    SparseCategoricalAccuracy() : Metric("accuracy") {}
    void update(const Tensor& pred, const Tensor& target) override
    {
        const int64_t width = pred.shape().back();
        const int64_t rows = pred.numel() / width;
        for (int64_t i = 0; i < rows; ++i)
            m_total += argmax(pred.data() + i * width, width) == static_cast<int64_t>(target.data()[i]) ? 1 : 0;
        m_count += static_cast<double>(rows);
    }
};

// Fraction of rows whose largest output matches the largest target (one-hot labels).
class CategoricalAccuracy final : public Metric {
public:
    CategoricalAccuracy() : Metric("accuracy") {}
    void update(const Tensor& pred, const Tensor& target) override
    {
        const int64_t width = pred.shape().back();
        const int64_t rows = pred.numel() / width;
        for (int64_t i = 0; i < rows; ++i)
            m_total += argmax(pred.data() + i * width, width) == argmax(target.data() + i * width, width) ? 1 : 0;
        m_count += static_cast<double>(rows);
    }
};

class BinaryAccuracy final : public Metric {
public:
    explicit BinaryAccuracy(float threshold) : Metric("accuracy"), m_threshold(threshold) {}
    void update(const Tensor& pred, const Tensor& target) override
    {
        for (int64_t i = 0; i < pred.numel(); ++i)
            m_total += (pred.data()[i] > m_threshold) == (target.data()[i] > 0.5f) ? 1 : 0;
        m_count += static_cast<double>(pred.numel());
    }

private:
    float m_threshold;
};

// Mean absolute (or squared) error per output.
class MeanError final : public Metric {
public:
    MeanError(std::string name, bool squared) : Metric(std::move(name)), m_squared(squared) {}
    void update(const Tensor& pred, const Tensor& target) override
    {
        if (pred.numel() != target.numel())
            throw ShapeError("metric " + m_name + ": predictions " + pred.shape().str() + " and targets " +
                             target.shape().str() + " do not fit");
        for (int64_t i = 0; i < pred.numel(); ++i) {
            const double d = pred.data()[i] - target.data()[i];
            m_total += m_squared ? d * d : std::fabs(d);
        }
        m_count += static_cast<double>(pred.numel());
    }

private:
    bool m_squared;
};

} // namespace

std::unique_ptr<Metric> createMetric(const std::string& name, const spec::LossSpec& loss, bool logits)
{
    if (name == "mae")
        return std::make_unique<MeanError>("mae", false);
    if (name == "mse")
        return std::make_unique<MeanError>("mse", true);
    if (name != "accuracy")
        throw ConfigError("training.metrics", "unknown metric \"" + name + "\"");
    if (loss.type == "sparse_categorical_crossentropy")
        return std::make_unique<SparseCategoricalAccuracy>();
    if (loss.type == "categorical_crossentropy")
        return std::make_unique<CategoricalAccuracy>();
    // binary_crossentropy and mse: the output is a score per example; 0.5 on probabilities is
    // 0 on logits.
    return std::make_unique<BinaryAccuracy>(logits ? 0.0f : 0.5f);
}

} // namespace strata::nn
