#pragma once
// Session: what an experiment becomes before training or inference: its datasets (checked
// against the model), and the strategy with its replicas, loss and optimizer.

#include "strata/data/dataset.h"
#include "strata/distribute/strategy.h"
#include "strata/training/data_fit.h"
#include "strata/training/evaluator.h"
#include "strata/schema/experiment.h"

#include <chrono>
#include <memory>
#include <vector>

namespace strata::run {

// Which examples train and which validate (data.validation).
struct TrainingSplit {
    std::vector<int64_t> train, validation;
};

// Where a training run ended, for its `done` event.
struct RunEnd {
    bool stopped = false; // before its last epoch (a stop request)
    int64_t steps = 0, epochs = 0;
    nlohmann::ordered_json lastTrain, lastValidation; // the last epoch's metrics (null: none)
};

struct Session {
    schema::Experiment experiment;
    distribute::HostDevices host;
    data::DatasetSplits data;
    std::unique_ptr<distribute::Strategy> strategy;
    std::unique_ptr<TargetEncoder> targets;
    int threads = 0; // this process's compute threads (taskThreads): evaluation runs on them

    // Loads the data and builds everything; throws ConfigError (devices that do not exist
    // here), DataError or ShapeError naming the cause.
    // A multi-worker strategy joins its job as `task` (CollectiveError when it cannot).
    static Session open(schema::Experiment experiment, const distribute::TaskContext& task = {});

    // The variables as the user sees them.
    nn::Sequential& model() { return strategy->model(); }
    // The training and validation examples; DataError when no training example is left.
    TrainingSplit split() const;
    // The dataset `split().validation` indexes.
    std::shared_ptr<data::Dataset> validationSet() const;
    // The `done` event's fields: position, the weights' checksum, the last epoch's metrics and,
    // for a run that completed, the test split's (evaluated here), wall seconds since `started`.
    nlohmann::ordered_json doneFields(const RunEnd& end, const std::string& runDir,
                                      std::chrono::steady_clock::time_point started);
    // Fresh metric objects for the experiment's metric names.
    std::vector<std::unique_ptr<nn::Metric>> createMetrics() const;
    // Loss and metrics on `indices` of `dataset` (in inference mode, on this thread).
    Evaluation evaluate(std::shared_ptr<data::Dataset> dataset, std::vector<int64_t> indices);
};

std::vector<int64_t> indexRange(int64_t begin, int64_t end);

} // namespace strata::run
