#pragma once
// Accuracy as a Keras user reads it: training per step and validation per epoch (drawn as
// markers at each epoch's last step; ReplicaLossLines does the same for the loss). Validation
// comes from the epochs of the first task that reports it (every worker of a synchronous job
// reports the same; under ParameterServer the coordinator does).
//
// Threads: as every StoreLines (the store's thread).

#include "app/metrics/store_lines.h"

#include <map>

namespace strata::app {

// The name of the accuracy-like metric `task` reports per step ("accuracy",
// "sparse_categorical_accuracy", "acc"); empty when none.
QString accuracyMetric(const TaskData& task);

// The training accuracy per step of each computing task (of many, their band and the lowest
// lately), and the validation accuracy per epoch.
class AccuracyLines final : public StoreLines {
public:
    using StoreLines::StoreLines;

protected:
    void collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const override;

private:
    mutable ValidationLine m_validation{QStringLiteral("accuracy"), QStringLiteral("validation accuracy")};
};

} // namespace strata::app
