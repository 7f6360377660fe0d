#pragma once
// Metrics as Keras computes them: a running mean over the examples seen since reset().
// "accuracy" picks the variant that fits the loss, as Keras does for the string "accuracy".
// Totals and counts merge across replicas.

#include "strata/schema/experiment.h"
#include "strata/tensor/tensor.h"

#include <memory>
#include <string>

namespace strata::nn {

class Metric {
public:
    virtual ~Metric() = default;
    // Adds one batch.
    virtual void update(const Tensor& pred, const Tensor& target) = 0;
    const std::string& name() const { return m_name; }
    double result() const { return m_count > 0 ? m_total / m_count : 0.0; }
    void reset() { m_total = m_count = 0; }
    // The running sums, for checkpoints.
    double total() const { return m_total; }
    double count() const { return m_count; }
    void restore(double total, double count)
    {
        m_total = total;
        m_count = count;
    }
    // Sums in another replica's batch totals.
    void merge(const Metric& other)
    {
        m_total += other.m_total;
        m_count += other.m_count;
    }

protected:
    explicit Metric(std::string name) : m_name(std::move(name)) {}
    std::string m_name;
    double m_total = 0;
    double m_count = 0;
};

// `predictionsAreLogits`: the model's outputs are logits (binary accuracy then thresholds at
// 0 instead of 0.5).
std::unique_ptr<Metric> createMetric(const std::string& name, const schema::LossSpec& loss, bool predictionsAreLogits);

} // namespace strata::nn
