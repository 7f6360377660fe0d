#include "central_storage_strategy.h"

#include "strata/data/shard.h"
#include "tensor/parallel.h"

namespace strata::distribute {

using Clock = std::chrono::steady_clock;

CentralStorageStrategy::CentralStorageStrategy(const schema::Experiment& experiment, std::vector<Device> computeDevices,
                                               Device parameterDevice, int computeThreads)
    : m_experiment(experiment), m_threads(computeThreads), m_parameterDevice(parameterDevice),
      m_central(std::make_unique<nn::Sequential>(experiment.model, experiment.seed)),
      m_optimizer(createScaledOptimizer(experiment, static_cast<int>(computeDevices.size())))
{
    m_devices = std::move(computeDevices);
    m_loss = nn::createLoss(experiment.training.loss, m_central->fuseOutputActivation(experiment.training.loss));
    int64_t total = 0;
    for (const nn::Parameter* p : m_central->parameters())
        total += p->value.numel();
    m_centralGradients = Tensor::zeros({total});
    int64_t offset = 0;
    for (nn::Parameter* p : m_central->parameters()) {
        p->grad = m_centralGradients.view(offset, p->value.shape());
        offset += p->value.numel();
    }
    if (!m_parameterDevice.isCpu() && !m_devices.front().isCpu())
        throw ConfigError("strategy.parameter_device", "CentralStorage on GPUs keeps the variables on the CPU; " +
                                                           m_parameterDevice.str() + " is a GPU");
    for (size_t r = 0; r < m_devices.size(); ++r) {
        m_replicas.push_back(std::make_unique<Replica>(static_cast<int>(r), m_devices[r], experiment, r > 0,
                                                       computeThreads));
        if (!m_devices[r].isCpu()) {
            m_hostGradients.emplace_back(Shape{total});
            continue;
        }
        // The replica's variables are the central ones (shared memory): no copy of its own.
        const auto& central = m_central->parameters();
        const auto& own = m_replicas.back()->model().parameters();
        for (size_t i = 0; i < own.size(); ++i)
            own[i]->value = central[i]->value;
    }
    m_sums = std::make_unique<ReplicaSums>(replicaCount(), nullptr, CollectiveOptions{}.timeout);
}

void CentralStorageStrategy::synchronize()
{
    for (auto& replica : m_replicas)
        for (size_t i = 0; i < m_central->states().size(); ++i)
            replica->model().states()[i]->value.copyFrom(m_central->states()[i]->value);
}

StepOutcome CentralStorageStrategy::step(const Tensor& x, const Tensor& y, const StepOptions& options,
                                         const nn::ForwardContext& ctx,
                                         std::vector<std::unique_ptr<nn::Metric>>& metrics)
{
    StepStart start = beginStep(m_threads, x, options);
    StepOutcome& out = start.out;
    const float scale = gradientScale(out.samples, m_lossScale.get());
    const auto slices = data::splitRows(out.samples, replicaCount());
    const bool onGpus = !m_hostGradients.empty();
    runOnReplicas(m_replicas, nullptr, [&](Replica& replica) {
        const size_t r = static_cast<size_t>(replica.index());
        const auto [begin, end] = slices[r];
        const nn::ForwardContext replicaCtx = replicaContext(ctx, replica.index(), *m_sums, replica.index());
        auto& own = replica.model().parameters();
        if (onGpus) // the current variables in, on this replica's stream
            for (size_t i = 0; i < own.size(); ++i)
                own[i]->value.copyFrom(m_central->parameters()[i]->value);
        replica.computeGradients(x.rows(begin, end), y.rows(begin, end), *m_loss, scale, replicaCtx);
        if (onGpus) // and the gradients out (waits for them)
            m_hostGradients[r].copyFrom(replica.gradientTensor());
    });

    // Reduce onto the parameter device, summing in replica order, then one update there.
    const auto reducing = Clock::now();
    float* total = m_centralGradients.data();
    std::vector<const float*> parts;
    for (size_t r = 0; r < m_replicas.size(); ++r)
        parts.push_back(onGpus ? m_hostGradients[r].data() : m_replicas[r]->gradients().data());
    parallel::forRanges(m_centralGradients.numel(), static_cast<int64_t>(parts.size()),
                        [&](int64_t begin, int64_t end) {
                            for (int64_t i = begin; i < end; ++i) {
                                float sum = parts[0][i];
                                for (size_t r = 1; r < parts.size(); ++r)
                                    sum += parts[r][i];
                                total[i] = sum;
                            }
                        });
    averageStates(m_replicas, nullptr, m_central.get());
    out.commMs = std::chrono::duration<double, std::milli>(Clock::now() - reducing).count();
    out.regularization = m_central->regularizationLoss();
    const bool finite = unscaled(m_lossScale.get(), m_centralGradients);
    if (finite) {
        const SpanScope optimizer(m_spans, TraceLane::Step, "optimizer");
        m_central->addRegularizationGradients();
        m_optimizer->apply(m_central->parameters());
    }
    if (m_lossScale)
        m_lossScale->update(finite);

    for (auto& replica : m_replicas) {
        out.lossSum += replica->lossSum();
        const int64_t n = replica->samples();
        out.replicas.push_back({replica->device().str(),
                                n > 0 ? replica->lossSum() / static_cast<double>(n) + out.regularization : 0.0, n});
        replica->drainMetrics(metrics);
    }
    out.computeMs = start.elapsedMs() - out.commMs;
    return out;
}

schema::PlacementEvent CentralStorageStrategy::placement() const
{
    auto p = commonPlacement(*this, m_experiment, m_threads);
    p.parameterDevice = m_parameterDevice.str();
    p.variables = variablePlacement(*m_central, {m_parameterDevice.str()});
    p.reduction.algorithm = "sum onto " + m_parameterDevice.str() + " (the parameter device), one update there";
    p.reduction.bytesPerStep = static_cast<int64_t>(m_centralGradients.bytes());
    return p;
}

std::vector<double> CentralStorageStrategy::replicaCpuSeconds() const { return cpuSecondsOf(m_replicas); }

} // namespace strata::distribute
