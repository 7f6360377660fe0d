#include "mirrored_strategy.h"

#include "strata/data/shard.h"

#include <cstring>

namespace strata::distribute {

using Clock = std::chrono::steady_clock;

MirroredStrategy::MirroredStrategy(const schema::Experiment& experiment, std::vector<Device> devices, int computeThreads,
                                   std::unique_ptr<Communicator> communicator)
    : m_experiment(experiment), m_threads(computeThreads),
      m_reduceToOneDevice(experiment.strategy.crossDeviceOps == "reduce_to_one_device"),
      m_communicator(std::move(communicator))
{
    m_devices = std::move(devices);
    const int n = replicaCount();
    STRATA_CHECK(m_communicator && m_communicator->size() == n, "one communicator rank per replica");
    for (int r = 0; r < n; ++r) {
        // Same seed, same initial weights: the copies start identical, as mirrored variables do.
        m_replicas.push_back(std::make_unique<Replica>(r, m_devices[static_cast<size_t>(r)], experiment, r > 0,
                                                       computeThreads));
        m_optimizers.push_back(createScaledOptimizer(experiment, n));
    }
    m_loss = nn::createLoss(experiment.training.loss,
                            m_replicas[0]->model().fuseOutputActivation(experiment.training.loss));
    if (!m_devices[0].isCpu())
        m_mirror = std::make_unique<HostMirror>(experiment, createScaledOptimizer(experiment, n));
    m_sums = std::make_unique<ReplicaSums>(n, nullptr, m_collective.timeout);
}

nn::Sequential& MirroredStrategy::model()
{
    return m_mirror ? m_mirror->pull(m_replicas[0]->model(), *m_optimizers[0]) : m_replicas[0]->model();
}

void MirroredStrategy::combine(int replica)
{
    const std::span<float> gradients = m_replicas[static_cast<size_t>(replica)]->gradients();
    if (m_reduceToOneDevice) {
        m_communicator->reduce(replica, 0, gradients, m_collective);
        m_communicator->broadcast(replica, 0, gradients, m_collective);
    } else {
        m_communicator->allReduce(replica, gradients, m_collective);
    }
}

StepOutcome MirroredStrategy::step(const Tensor& x, const Tensor& y, const StepOptions& options,
                                   const nn::ForwardContext& ctx,
                                   std::vector<std::unique_ptr<nn::Metric>>& metrics)
{
    StepStart start = beginStep(m_threads, x, options);
    StepOutcome& out = start.out;
    const float scale = gradientScale(out.samples, m_lossScale.get());
    bool firstFinite = true;
    const auto slices = data::splitRows(out.samples, replicaCount());
    double regularization = 0;

    runOnReplicas(m_replicas, m_communicator.get(), [&](Replica& replica) {
        const int r = replica.index();
        const auto [begin, end] = slices[static_cast<size_t>(r)];
        const nn::ForwardContext replicaCtx = replicaContext(ctx, r, *m_sums, r);
        replica.computeGradients(x.rows(begin, end), y.rows(begin, end), *m_loss, scale, replicaCtx);
        replica.gradientsDone = Clock::now();
        SpanRecorder* spans = r == 0 ? m_spans : nullptr; // replica 0 runs on the trainer's thread
        SpanScope reduction(spans, TraceLane::Reduce, "all-reduce");
        combine(r);
        reduction.end();
        replica.reduced = Clock::now();
        nn::Sequential& model = replica.model();
        // Every replica holds the same sum: all skip an overflowed step, or none.
        const bool finite = unscaled(m_lossScale.get(), replica.gradientTensor());
        if (r == 0) {
            regularization = model.regularizationLoss();
            firstFinite = finite;
        }
        if (!finite)
            return;
        const SpanScope optimizer(spans, TraceLane::Step, "optimizer");
        model.addRegularizationGradients();
        m_optimizers[static_cast<size_t>(r)]->apply(model.parameters());
    });
    if (m_lossScale)
        m_lossScale->update(firstFinite);
    averageStates(m_replicas, nullptr);

    gatherReplicaSteps(m_replicas, regularization, metrics, out);
    if (m_mirror)
        m_mirror->markStale();
    out.computeMs = start.elapsedMs() - out.commMs;
    return out;
}

void MirroredStrategy::synchronize()
{
    if (m_mirror)
        m_mirror->push(m_replicas[0]->model(), *m_optimizers[0]);
    copyFirstReplicaState(m_replicas, m_optimizers);
}

schema::PlacementEvent MirroredStrategy::placement() const
{
    auto p = commonPlacement(*this, m_experiment, m_threads);
    std::vector<std::string> names;
    for (const auto& d : m_devices)
        names.push_back(d.str());
    p.variables = variablePlacement(m_replicas[0]->model(), names);
    p.reduction.crossDeviceOps = m_experiment.strategy.crossDeviceOps;
    p.reduction.algorithm = m_reduceToOneDevice ? "reduce onto " + m_devices[0].str() + ", then broadcast"
                                                : m_communicator->algorithm();
    p.reduction.bytesPerStep = static_cast<int64_t>(m_replicas[0]->gradients().size() * sizeof(float));
    return p;
}

std::vector<double> MirroredStrategy::replicaCpuSeconds() const { return cpuSecondsOf(m_replicas); }

} // namespace strata::distribute
