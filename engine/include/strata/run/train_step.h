#pragma once
// TrainStep: one optimization step of a model on one batch: forward, loss, backward,
// regularization, optimizer update. What `bench/` measures and the trainer repeats.

#include "strata/nn/loss.h"
#include "strata/nn/metric.h"
#include "strata/nn/optimizer.h"
#include "strata/nn/sequential.h"

#include <memory>
#include <vector>

namespace strata::run {

struct StepResult {
    double lossSum = 0;        // sum of per-example losses over the batch
    double regularization = 0; // L2 penalty at the weights used for this step
    int64_t samples = 0;
    double loss() const { return lossSum / static_cast<double>(samples) + regularization; }
};

class TrainStep {
public:
    TrainStep(nn::Sequential& model, const nn::Loss& loss, nn::Optimizer& optimizer);

    // Metrics updated with each batch's outputs (may be empty).
    void setMetrics(std::vector<std::unique_ptr<nn::Metric>>* metrics) { m_metrics = metrics; }
    StepResult run(const Tensor& x, const Tensor& y, const nn::ForwardContext& ctx);

private:
    nn::Sequential& m_model;
    const nn::Loss& m_loss;
    nn::Optimizer& m_optimizer;
    std::vector<std::unique_ptr<nn::Metric>>* m_metrics = nullptr;
    Tensor m_gradOutput;
};

} // namespace strata::run
