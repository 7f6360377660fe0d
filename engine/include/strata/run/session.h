#pragma once
// Session: what an experiment becomes before training or inference: its datasets (checked
// against the model), the model, loss, metrics and optimizer.

#include "strata/data/dataset.h"
#include "strata/nn/loss.h"
#include "strata/nn/metric.h"
#include "strata/nn/optimizer.h"
#include "strata/nn/sequential.h"
#include "strata/run/data_fit.h"
#include "strata/run/evaluator.h"
#include "strata/spec/experiment.h"

#include <memory>
#include <vector>

namespace strata::run {

struct Session {
    spec::Experiment experiment;
    data::DatasetSplits data;
    std::unique_ptr<nn::Sequential> model;
    std::unique_ptr<nn::Loss> loss;
    std::unique_ptr<nn::Optimizer> optimizer;
    std::unique_ptr<TargetEncoder> targets;

    // Loads the data and builds everything; throws DataError / ShapeError naming the cause.
    static Session open(spec::Experiment experiment);

    // Fresh metric objects for the experiment's metric names.
    std::vector<std::unique_ptr<nn::Metric>> createMetrics() const;
    // Loss and metrics on `indices` of `dataset` (in inference mode).
    Evaluation evaluate(std::shared_ptr<data::Dataset> dataset, std::vector<int64_t> indices);
};

std::vector<int64_t> indexRange(int64_t begin, int64_t end);

} // namespace strata::run
