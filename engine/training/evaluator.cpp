#include "strata/training/evaluator.h"

#include "strata/data/pipeline.h"

#include <cstring>

namespace strata::run {

nlohmann::ordered_json Evaluation::toJson() const
{
    nlohmann::ordered_json j{{"loss", loss}};
    for (const auto& [name, value] : metrics)
        j[name] = value;
    return j;
}

namespace {
data::PipelineOptions inOrder(int64_t batchSize)
{
    data::PipelineOptions o;
    o.batchSize = batchSize;
    o.shuffle = false;
    o.prefetch = 2;
    return o;
}
} // namespace

Evaluation evaluate(nn::Sequential& model, const nn::Loss& loss, std::vector<std::unique_ptr<nn::Metric>>& metrics,
                    TargetEncoder& targets, std::shared_ptr<const data::Dataset> dataset,
                    std::vector<int64_t> indices, int64_t batchSize)
{
    Evaluation e;
    for (auto& m : metrics)
        m->reset();
    if (indices.empty())
        return e;
    data::Pipeline pipeline(std::move(dataset), std::move(indices), inOrder(batchSize));
    const nn::ForwardContext ctx{false, 0, 0};
    double lossSum = 0;
    for (int64_t b = 0; b < pipeline.batchesPerEpoch(); ++b) {
        const data::Batch batch = pipeline.next();
        const Tensor& y = targets.encode(batch.y);
        const Tensor& out = model.forward(batch.x, ctx);
        lossSum += loss.compute(out, y, nullptr, 1.0f);
        for (auto& m : metrics)
            m->update(out, y);
        e.examples += batch.size();
    }
    e.loss = lossSum / static_cast<double>(e.examples) + model.regularizationLoss();
    for (auto& m : metrics)
        e.metrics.emplace_back(m->name(), m->result());
    return e;
}

Tensor predict(nn::Sequential& model, std::shared_ptr<const data::Dataset> dataset, std::vector<int64_t> indices,
               int64_t batchSize)
{
    const int64_t n = static_cast<int64_t>(indices.size());
    Tensor result(model.outputShape().withBatch(n));
    if (n == 0)
        return result;
    data::Pipeline pipeline(std::move(dataset), std::move(indices), inOrder(batchSize));
    const nn::ForwardContext ctx{false, 0, 0};
    const int64_t perExample = model.outputShape().numel();
    int64_t done = 0;
    for (int64_t b = 0; b < pipeline.batchesPerEpoch(); ++b) {
        const data::Batch batch = pipeline.next();
        const Tensor& out = model.forward(batch.x, ctx);
        std::memcpy(result.data() + done * perExample, out.data(), out.bytes());
        done += batch.size();
    }
    model.finishPredictions(result);
    return result;
}

} // namespace strata::run
