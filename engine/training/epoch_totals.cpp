#include "strata/training/epoch_totals.h"

#include <chrono>

namespace strata::run {

void EpochTotals::write(Checkpoint& c, const std::vector<std::unique_ptr<nn::Metric>>& metrics) const
{
    c.extra["epoch_loss_sum"] = lossSum;
    c.extra["epoch_samples"] = samples;
    nlohmann::ordered_json totals = nlohmann::ordered_json::object();
    for (const auto& m : metrics)
        totals[m->name()] = {m->total(), m->count()};
    c.extra["epoch_metrics"] = totals;
}

void EpochTotals::read(const Checkpoint& c, std::vector<std::unique_ptr<nn::Metric>>& metrics)
{
    lossSum = c.extra.value("epoch_loss_sum", 0.0);
    samples = c.extra.value("epoch_samples", int64_t{0});
    const auto totals = c.extra.value("epoch_metrics", nlohmann::ordered_json::object());
    for (auto& m : metrics) {
        m->reset();
        if (totals.contains(m->name()))
            m->restore(totals[m->name()].at(0).get<double>(), totals[m->name()].at(1).get<double>());
    }
}

nlohmann::ordered_json saveCheckpointReported(CheckpointDirectory& dir, const Checkpoint& checkpoint)
{
    const auto started = std::chrono::steady_clock::now();
    const std::string path = dir.save(checkpoint);
    size_t bytes = 0;
    for (const auto& [name, tensor] : checkpoint.tensors)
        bytes += tensor.bytes();
    return {{"step", checkpoint.step},
            {"epoch", checkpoint.epoch},
            {"path", path},
            {"bytes", bytes},
            {"ms", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count()}};
}

} // namespace strata::run
