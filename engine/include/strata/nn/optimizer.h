#pragma once
// Optimizers with Keras' update rules and defaults: SGD (momentum, Nesterov), Adam, RMSprop.
// An optimizer keeps per-parameter slots (momentum, moments...) that checkpoints save.

#include "strata/nn/layer.h"
#include "strata/schema/experiment.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace strata::nn {

class Optimizer {
public:
    explicit Optimizer(double learningRate) : m_learningRate(learningRate) {}
    virtual ~Optimizer() = default;

    // One update of every parameter from its gradient (the same parameters every call).
    void apply(const std::vector<Parameter*>& params);
    // Creates the slots for `params` (done by apply too); needed before restoring state.
    void prepare(const std::vector<Parameter*>& params);

    int64_t iterations() const { return m_iterations; }
    void setIterations(int64_t n) { m_iterations = n; }
    double learningRate() const { return m_learningRate; }
    void setLearningRate(double lr) { m_learningRate = lr; }
    virtual const char* name() const = 0;

    // Slots by name ("dense/kernel/m"), for checkpoints.
    std::vector<std::pair<std::string, Tensor*>> stateTensors();

protected:
    virtual std::vector<std::string> slotNames() const = 0;
    // Updates elements [begin, end) of `param.value` from `param.grad`; `t` counts updates
    // from 1. Called concurrently for disjoint ranges of the same parameter.
    virtual void update(Parameter& param, std::vector<Tensor>& slots, int64_t t, int64_t begin, int64_t end) = 0;

    double m_learningRate;

private:
    int64_t m_iterations = 0;
    std::vector<std::string> m_paramNames;
    std::vector<std::vector<Tensor>> m_slots;
};

std::unique_ptr<Optimizer> createOptimizer(const schema::OptimizerSpec& spec);

} // namespace strata::nn
