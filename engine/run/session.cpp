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

Session Session::open(spec::Experiment experiment, const dist::TaskContext& task)
{
    Session s;
    s.experiment = std::move(experiment);
    const auto& t = s.experiment.training;
    // This thread evaluates (and computes replica 0, which sets its own count per step).
    blas::setThreads(static_cast<int>(t.threads));
    flushDenormalsToZero();

    s.host = dist::HostDevices::probe(s.experiment.strategy.logicalCpuDevices,
                                      s.experiment.strategy.logicalGpuDevices);
    dist::configureGpus(s.experiment, s.host);
    s.strategy = dist::createStrategy(s.experiment, s.host, task);
    s.data = data::loadDatasets(s.experiment);
    const nn::Sequential& model = s.strategy->model();
    adaptFeatures(*s.data.train, model.inputShape(), "training");
    if (s.data.test)
        adaptFeatures(*s.data.test, model.inputShape(), "test");
    s.targets = std::make_unique<TargetEncoder>(*s.data.train, model.outputShape(), t.loss);
    return s;
}

std::vector<std::unique_ptr<nn::Metric>> Session::createMetrics() const
{
    std::vector<std::unique_ptr<nn::Metric>> metrics;
    for (const auto& name : experiment.training.metrics)
        metrics.push_back(nn::createMetric(name, experiment.training.loss, strategy->loss().fromLogits()));
    return metrics;
}

Evaluation Session::evaluate(std::shared_ptr<data::Dataset> dataset, std::vector<int64_t> indices)
{
    auto metrics = createMetrics();
    blas::setThreads(static_cast<int>(experiment.training.threads));
    return run::evaluate(model(), strategy->loss(), metrics, *targets, std::move(dataset), std::move(indices),
                         experiment.training.batchSize);
}

} // namespace strata::run
