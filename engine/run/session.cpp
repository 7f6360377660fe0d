#include "strata/run/session.h"

#include "strata/data/loaders.h"
#include "strata/tensor/blas.h"
#include "strata/tensor/denormals.h"

#include <numeric>

namespace strata::run {

std::vector<int64_t> indexRange(int64_t begin, int64_t end)
{
    std::vector<int64_t> v(static_cast<size_t>(std::max<int64_t>(end - begin, 0)));
    std::iota(v.begin(), v.end(), begin);
    return v;
}

Session Session::open(spec::Experiment experiment)
{
    Session s;
    s.experiment = std::move(experiment);
    const auto& t = s.experiment.training;
    blas::setThreads(static_cast<int>(t.threads));
    flushDenormalsToZero();

    s.model = std::make_unique<nn::Sequential>(s.experiment.model, s.experiment.seed);
    s.data = data::loadDatasets(s.experiment);
    adaptFeatures(*s.data.train, s.model->inputShape(), "training");
    if (s.data.test)
        adaptFeatures(*s.data.test, s.model->inputShape(), "test");
    s.targets = std::make_unique<TargetEncoder>(*s.data.train, s.model->outputShape(), t.loss);

    // Cross-entropy on a softmax/sigmoid output is computed from logits, as Keras does.
    const bool logits = s.model->fuseOutputActivation(t.loss);
    s.loss = nn::createLoss(t.loss, logits);
    s.optimizer = nn::createOptimizer(t.optimizer);
    return s;
}

std::vector<std::unique_ptr<nn::Metric>> Session::createMetrics() const
{
    std::vector<std::unique_ptr<nn::Metric>> metrics;
    for (const auto& name : experiment.training.metrics)
        metrics.push_back(nn::createMetric(name, experiment.training.loss, loss->fromLogits()));
    return metrics;
}

Evaluation Session::evaluate(std::shared_ptr<data::Dataset> dataset, std::vector<int64_t> indices)
{
    auto metrics = createMetrics();
    return run::evaluate(*model, *loss, metrics, *targets, std::move(dataset), std::move(indices),
                         experiment.training.batchSize);
}

} // namespace strata::run
