#include "single_device_strategy.h"

namespace strata::distribute {

SingleDeviceStrategy::SingleDeviceStrategy(std::string name, const schema::Experiment& experiment, Device device,
                                           int computeThreads)
    : m_name(std::move(name)), m_experiment(experiment), m_threads(computeThreads),
      m_replica(std::make_unique<Replica>(0, device, experiment, false, computeThreads)),
      m_optimizer(createScaledOptimizer(experiment, 1))
{
    m_devices = {device};
    m_loss = nn::createLoss(experiment.training.loss, m_replica->model().fuseOutputActivation(experiment.training.loss));
    if (!device.isCpu())
        m_mirror = std::make_unique<HostMirror>(experiment, createScaledOptimizer(experiment, 1));
}

nn::Sequential& SingleDeviceStrategy::model()
{
    return m_mirror ? m_mirror->pull(m_replica->model(), *m_optimizer) : m_replica->model();
}

void SingleDeviceStrategy::synchronize()
{
    if (m_mirror)
        m_mirror->push(m_replica->model(), *m_optimizer);
}

StepOutcome SingleDeviceStrategy::step(const Tensor& x, const Tensor& y, const StepOptions& options,
                                       const nn::ForwardContext& ctx,
                                       std::vector<std::unique_ptr<nn::Metric>>& metrics)
{
    StepStart start = beginStep(m_threads, x, options);
    StepOutcome& out = start.out;
    nn::Sequential& model = m_replica->model();
    m_replica->computeGradients(x, y, *m_loss, gradientScale(out.samples, m_lossScale.get()), ctx);
    out.lossSum = m_replica->lossSum();
    out.regularization = model.regularizationLoss();
    const bool finite = unscaled(m_lossScale.get(), m_replica->gradientTensor());
    if (finite) {
        const SpanScope optimizer(m_spans, TraceLane::Step, "optimizer");
        model.addRegularizationGradients();
        m_optimizer->apply(model.parameters());
    }
    if (m_lossScale)
        m_lossScale->update(finite);
    m_replica->drainMetrics(metrics);
    out.replicas = {{m_devices[0].str(), out.loss(), out.samples}};
    if (m_mirror)
        m_mirror->markStale();
    out.computeMs = start.elapsedMs();
    return out;
}

schema::PlacementEvent SingleDeviceStrategy::placement() const
{
    auto p = commonPlacement(*this, m_experiment, m_threads);
    p.variables = variablePlacement(m_replica->model(), {m_devices[0].str()});
    p.reduction.algorithm = "none (one replica)";
    return p;
}

} // namespace strata::distribute
