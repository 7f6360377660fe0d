#pragma once
// Inference over a dataset: evaluate (loss and metrics, like Keras' model.evaluate) and
// predict (outputs as the user's model gives them: probabilities after a softmax layer).

#include "strata/data/dataset.h"
#include "strata/nn/loss.h"
#include "strata/nn/metric.h"
#include "strata/nn/sequential.h"
#include "strata/training/data_fit.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace strata::run {

struct Evaluation {
    double loss = 0;
    std::vector<std::pair<std::string, double>> metrics;
    int64_t examples = 0;
    // {"loss": ..., "accuracy": ...}
    nlohmann::ordered_json toJson() const;
};

// Evaluates on `indices` of `dataset` in order, batch by batch (metrics are reset first).
Evaluation evaluate(nn::Sequential& model, const nn::Loss& loss, std::vector<std::unique_ptr<nn::Metric>>& metrics,
                    TargetEncoder& targets, std::shared_ptr<const data::Dataset> dataset,
                    std::vector<int64_t> indices, int64_t batchSize);

// Outputs for `indices` of `dataset`: shape (indices.size(), model output...).
Tensor predict(nn::Sequential& model, std::shared_ptr<const data::Dataset> dataset, std::vector<int64_t> indices,
               int64_t batchSize);

} // namespace strata::run
