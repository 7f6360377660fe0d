#include "ps/parameter_server_strategy.h"

#include <chrono>

namespace strata::ps {

namespace {
using Clock = std::chrono::steady_clock;
double msBetween(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }
} // namespace

ParameterServerStrategy::ParameterServerStrategy(const schema::Experiment& experiment, const distribute::TaskContext& task,
                                                 int computeThreads)
    : m_experiment(experiment), m_threads(computeThreads),
      m_replica(std::make_unique<distribute::Replica>(0, Device::cpu(0), experiment, false, computeThreads)),
      m_optimizer(distribute::createScaledOptimizer(experiment, 1)),
      m_layout(JobLayout::of(experiment, m_replica->model())), m_keys(deriveCurveKeys(task.token))
{
    m_devices = {Device::cpu(0)};
    m_loss = nn::createLoss(experiment.training.loss, m_replica->model().fuseOutputActivation(experiment.training.loss));
    m_optimizer->prepare(m_replica->model().parameters());
    m_client = std::make_unique<PsClient>(m_context, m_keys, m_layout);
}

ParameterServerStrategy::~ParameterServerStrategy()
{
    m_client.reset(); // its sockets close before the context
}

distribute::StepOutcome ParameterServerStrategy::step(const Tensor& x, const Tensor& y, const distribute::StepOptions& options,
                                                const nn::ForwardContext& ctx,
                                                std::vector<std::unique_ptr<nn::Metric>>& metrics)
{
    distribute::StepStart start = distribute::beginStep(m_threads, x, options);
    distribute::StepOutcome& out = start.out;
    nn::Sequential& model = m_replica->model();
    const auto& params = model.parameters();
    const auto started = start.started;
    SpanScope pull(m_spans, TraceLane::Ps, "pull");
    m_client->pull(params);
    pull.end();
    const auto pulled = Clock::now();
    m_replica->computeGradients(x, y, *m_loss, 1.0f / static_cast<float>(out.samples), ctx);
    out.lossSum = m_replica->lossSum();
    out.regularization = model.regularizationLoss();
    model.addRegularizationGradients();
    const auto computed = Clock::now();
    SpanScope push(m_spans, TraceLane::Ps, "push");
    m_lastPush = m_client->push(params);
    push.end();
    m_replica->drainMetrics(metrics);
    out.replicas = {{"cpu:0", out.loss(), out.samples}};
    out.commMs = msBetween(started, pulled) + msBetween(computed, Clock::now());
    out.computeMs = start.elapsedMs();
    return out;
}

void ParameterServerStrategy::synchronize() { m_client->init(m_replica->model().parameters(), *m_optimizer); }

void ParameterServerStrategy::fetch() { m_client->fetchState(m_replica->model().parameters(), *m_optimizer); }

schema::PlacementEvent ParameterServerStrategy::workerPlacement() const
{
    auto p = distribute::commonPlacement(*this, m_experiment, m_threads);
    // Each step applies one worker's batch: no larger global batch and no learning-rate scaling.
    p.globalBatchSize = m_experiment.training.batchSize;
    const double lr = m_experiment.training.optimizer.learningRate;
    p.learningRate = {lr, lr, "none (each update is one worker's batch)"};
    return p;
}

schema::PlacementEvent ParameterServerStrategy::placement() const
{
    auto p = workerPlacement();
    // The coordinator computes nothing: the replicas are the workers', in their own placements.
    p.replicas.clear();
    auto& job = p.parameterServer.emplace();
    for (const auto& t : m_layout.workers)
        job.workerTasks.push_back(t.name());
    for (const auto& t : m_layout.ps)
        job.psTasks.push_back(t.name());
    job.partitioner = schema::partitionerToJson(m_experiment.strategy.partitioner);
    if (m_layout.maxStaleness >= 0)
        job.maxStaleness = m_layout.maxStaleness;
    int64_t bytes = 0;
    for (const auto& v : m_layout.variables) {
        schema::PlacementEvent::Variable& placed = p.variables.emplace_back();
        placed.name = v.name;
        placed.shape = v.shape.dims();
        placed.bytes = v.shape.numel() * 4;
        placed.shards.emplace();
        for (const auto& s : v.shards) {
            const std::string holder = m_layout.ps[static_cast<size_t>(s.ps)].name();
            placed.shards->push_back({s.name, holder, s.rowBegin, s.rowEnd, s.bytes()});
            if (std::find(placed.devices.begin(), placed.devices.end(), holder) == placed.devices.end())
                placed.devices.push_back(holder);
        }
        bytes += placed.bytes;
    }
    p.reduction.algorithm = m_layout.maxStaleness < 0 ? "parameter servers (asynchronous)"
                                                      : "parameter servers (stale-synchronous, k=" +
                                                            std::to_string(m_layout.maxStaleness) + ")";
    // A step pulls every variable and pushes every gradient.
    p.reduction.bytesPerStep = 2 * bytes;
    return p;
}

} // namespace strata::ps
