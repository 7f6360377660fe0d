#include "ps/parameter_server_strategy.h"

#include "strata/tensor/blas.h"

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
    blas::setThreads(m_threads);
    nn::Sequential& model = m_replica->model();
    const auto& params = model.parameters();
    const auto started = Clock::now();
    m_client->pull(params);
    const auto pulled = Clock::now();
    distribute::StepOutcome out;
    out.samples = x.dim(0);
    out.stop = options.stopRequested;
    m_replica->computeGradients(x, y, *m_loss, 1.0f / static_cast<float>(out.samples), ctx);
    out.lossSum = m_replica->lossSum();
    out.regularization = model.regularizationLoss();
    model.addRegularizationGradients();
    const auto computed = Clock::now();
    m_lastPush = m_client->push(params);
    m_replica->drainMetrics(metrics);
    out.replicas = {{"cpu:0", out.loss(), out.samples}};
    out.commMs = msBetween(started, pulled) + msBetween(computed, Clock::now());
    out.computeMs = msBetween(started, Clock::now());
    return out;
}

void ParameterServerStrategy::synchronize() { m_client->init(m_replica->model().parameters(), *m_optimizer); }

void ParameterServerStrategy::fetch() { m_client->fetchState(m_replica->model().parameters(), *m_optimizer); }

nlohmann::ordered_json ParameterServerStrategy::workerPlacement() const
{
    auto p = distribute::commonPlacement(*this, m_experiment, m_threads);
    // Each step applies one worker's batch: no larger global batch and no learning-rate scaling.
    p["global_batch_size"] = m_experiment.training.batchSize;
    const double lr = m_experiment.training.optimizer.learningRate;
    p["learning_rate"] = {{"base", lr}, {"scaled", lr}, {"rule", "none (each update is one worker's batch)"}};
    return p;
}

nlohmann::ordered_json ParameterServerStrategy::placement() const
{
    auto p = workerPlacement();
    // The coordinator computes nothing: the replicas are the workers', in their own placements.
    p["replicas"] = nlohmann::ordered_json::array();
    nlohmann::ordered_json workers = nlohmann::ordered_json::array(), ps = nlohmann::ordered_json::array();
    for (const auto& t : m_layout.workers)
        workers.push_back(t.name());
    for (const auto& t : m_layout.ps)
        ps.push_back(t.name());
    p["worker_tasks"] = workers;
    p["ps_tasks"] = ps;
    p["partitioner"] = schema::partitionerToJson(m_experiment.strategy.partitioner);
    p["max_staleness"] = m_layout.maxStaleness >= 0 ? nlohmann::ordered_json(m_layout.maxStaleness)
                                                     : nlohmann::ordered_json();
    nlohmann::ordered_json variables = nlohmann::ordered_json::array();
    int64_t bytes = 0;
    for (const auto& v : m_layout.variables) {
        nlohmann::ordered_json shards = nlohmann::ordered_json::array();
        std::vector<std::string> devices;
        for (const auto& s : v.shards) {
            const std::string holder = m_layout.ps[static_cast<size_t>(s.ps)].name();
            shards.push_back({{"name", s.name}, {"ps", holder}, {"rows", {s.rowBegin, s.rowEnd}}, {"bytes", s.bytes()}});
            if (std::find(devices.begin(), devices.end(), holder) == devices.end())
                devices.push_back(holder);
        }
        const int64_t vbytes = v.shape.numel() * 4;
        bytes += vbytes;
        variables.push_back({{"name", v.name}, {"shape", v.shape.dims()}, {"bytes", vbytes}, {"devices", devices},
                             {"shards", shards}});
    }
    p["variables"] = variables;
    const std::string algorithm = m_layout.maxStaleness < 0
                                      ? "parameter servers (asynchronous)"
                                      : "parameter servers (stale-synchronous, k=" +
                                            std::to_string(m_layout.maxStaleness) + ")";
    // A step pulls every variable and pushes every gradient.
    p["reduction"] = {{"algorithm", algorithm}, {"bytes_per_step", 2 * bytes}};
    return p;
}

} // namespace strata::ps
