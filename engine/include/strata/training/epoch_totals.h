#pragma once
// The totals of the epoch in progress (loss sum, examples, each metric's total and count),
// kept in checkpoints so that a resumed epoch reports what an uninterrupted one would.

#include "strata/nn/metric.h"
#include "strata/rundir/checkpoint.h"

#include <memory>
#include <vector>

namespace strata::run {

struct EpochTotals {
    double lossSum = 0;
    int64_t samples = 0;

    double meanLoss() const { return samples > 0 ? lossSum / static_cast<double>(samples) : 0.0; }
    // Into `c.extra`, with `metrics`' running totals.
    void write(Checkpoint& c, const std::vector<std::unique_ptr<nn::Metric>>& metrics) const;
    // From `c.extra` (zero when absent); `metrics` are reset to the checkpoint's totals.
    void read(const Checkpoint& c, std::vector<std::unique_ptr<nn::Metric>>& metrics);
};

// Saves `checkpoint` into `dir` and returns the `checkpoint` event's fields.
nlohmann::ordered_json saveCheckpointReported(CheckpointDirectory& dir, const Checkpoint& checkpoint);

} // namespace strata::run
