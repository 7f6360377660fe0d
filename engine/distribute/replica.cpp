#include "replica.h"

#include "cuda/ops.h"
#include "strata/tensor/blas.h"

#include <algorithm>
#include <utility>

namespace strata::distribute {

namespace {
// Waits for this thread's work on `device` (a GPU), before another thread's stream uses it.
void settle(Device device)
{
    if (!device.isCpu())
        cuda::ops().synchronize(device.index);
}
} // namespace

void runOnReplicas(std::vector<std::unique_ptr<Replica>>& replicas, Communicator* communicator,
                   const std::function<void(Replica&)>& body)
{
    for (size_t i = replicas.size(); i-- > 0;) {
        Replica& replica = *replicas[i];
        replica.run([&body, &replica, communicator] {
            try {
                body(replica);
            } catch (const CollectiveError&) {
                throw;
            } catch (const std::exception& e) {
                if (communicator)
                    communicator->abort("replica " + std::to_string(replica.index()) + " on " +
                                        replica.device().str() + " failed: " + e.what());
                throw;
            }
        });
    }
    std::exception_ptr first, firstCollective;
    for (auto& replica : replicas) {
        try {
            replica->wait();
        } catch (const CollectiveError&) {
            if (!firstCollective)
                firstCollective = std::current_exception();
        } catch (...) {
            if (!first)
                first = std::current_exception();
        }
    }
    if (first)
        std::rethrow_exception(first);
    if (firstCollective)
        std::rethrow_exception(firstCollective);
}

StepStart beginStep(int computeThreads, const Tensor& x, const StepOptions& options)
{
    blas::setThreads(computeThreads);
    StepStart s;
    s.started = std::chrono::steady_clock::now();
    s.out.samples = x.dim(0);
    s.out.stop = options.stopRequested;
    return s;
}

double StepStart::elapsedMs() const
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
}

nn::ForwardContext replicaContext(const nn::ForwardContext& ctx, int replica, const ReplicaSums& sums, int local)
{
    nn::ForwardContext c = ctx;
    c.replica = replica;
    c.crossReplicaSum = sums.forReplica(local);
    return c;
}

Replica::Replica(int index, Device device, const schema::Experiment& experiment, bool ownThread, int computeThreads,
                 int64_t extraSlots)
    : m_index(index), m_device(device),
      m_model(std::make_unique<nn::Sequential>(experiment.model, experiment.seed))
{
    const bool logits = m_model->fuseOutputActivation(experiment.training.loss);
    if (!device.isCpu())
        m_model->moveTo(device);
    // All gradients in one buffer, each parameter's a view into it.
    int64_t total = 0;
    for (const nn::Parameter* p : m_model->parameters())
        total += p->value.numel();
    m_gradientCount = static_cast<size_t>(total);
    m_gradients = Tensor::zeros({total + extraSlots}, device);
    int64_t offset = 0;
    for (nn::Parameter* p : m_model->parameters()) {
        p->grad = m_gradients.view(offset, p->value.shape());
        offset += p->value.numel();
    }
    // The copies above ran on this thread's stream; the replica's thread computes on its own.
    settle(device);
    for (const auto& name : experiment.training.metrics)
        m_metrics.push_back(nn::createMetric(name, experiment.training.loss, logits));
    if (ownThread)
        m_thread = std::make_unique<ReplicaThread>(index, computeThreads);
}

void Replica::computeGradients(const Tensor& x, const Tensor& y, const nn::Loss& loss, float gradScale,
                               const nn::ForwardContext& ctx, const std::function<void(size_t)>& gradientsFinal)
{
    m_samples = x.dim(0);
    if (m_samples == 0) {
        // A global batch smaller than the replica count leaves this replica without data.
        m_gradients.view(0, {static_cast<int64_t>(m_gradientCount)}).setZero();
        m_lossSum = 0;
        if (ctx.crossReplicaSum)
            m_model->joinWithoutData(ctx);
        return;
    }
    SpanScope forward(spans, TraceLane::Step, "forward");
    const Tensor& input = onDevice(x, m_x);
    const Tensor& target = onDevice(y, m_y);
    const Tensor& out = m_model->forward(input, ctx);
    m_gradOutput.ensureShape(out.shape(), out.device());
    m_lossSum = loss.compute(out, target, &m_gradOutput, gradScale);
    for (auto& m : m_metrics)
        m->update(out, target);
    forward.end();
    const SpanScope backward(spans, TraceLane::Step, "backward");
    m_model->backward(m_gradOutput, gradientsFinal);
}

const Tensor& Replica::onDevice(const Tensor& t, Tensor& buffer) const
{
    if (t.device() == m_device)
        return t;
    buffer.ensureShape(t.shape(), m_device);
    buffer.copyFrom(t);
    return buffer;
}

void Replica::drainMetrics(std::vector<std::unique_ptr<nn::Metric>>& into)
{
    for (size_t i = 0; i < m_metrics.size() && i < into.size(); ++i) {
        into[i]->merge(*m_metrics[i]);
        m_metrics[i]->reset();
    }
}

void Replica::run(std::function<void()> task)
{
    if (m_thread) {
        m_thread->run(std::move(task));
        return;
    }
    try {
        task();
    } catch (...) {
        m_inlineError = std::current_exception();
    }
}

void Replica::wait()
{
    if (m_thread)
        m_thread->wait();
    else if (m_inlineError)
        std::rethrow_exception(std::exchange(m_inlineError, nullptr));
}

double Replica::cpuSeconds() const
{
    if (m_thread)
        return m_thread->cpuSeconds();
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void gatherReplicaSteps(std::vector<std::unique_ptr<Replica>>& replicas, double regularization,
                        std::vector<std::unique_ptr<nn::Metric>>& metrics, StepOutcome& out)
{
    out.regularization = regularization;
    std::chrono::steady_clock::time_point gradientsDone{}, reduced{};
    for (auto& replica : replicas) {
        out.lossSum += replica->lossSum();
        const int64_t n = replica->samples();
        out.replicas.push_back({replica->device().str(),
                                n > 0 ? replica->lossSum() / static_cast<double>(n) + regularization : 0.0, n});
        replica->drainMetrics(metrics);
        gradientsDone = std::max(gradientsDone, replica->gradientsDone);
        reduced = std::max(reduced, replica->reduced);
    }
    out.commMs = std::max(0.0, std::chrono::duration<double, std::milli>(reduced - gradientsDone).count());
}

float gradientScale(int64_t globalSamples, const nn::LossScale* lossScale)
{
    const float scale = 1.0f / static_cast<float>(globalSamples);
    return lossScale ? scale * lossScale->factor() : scale;
}

bool unscaled(const nn::LossScale* lossScale, Tensor gradients)
{
    return !lossScale || lossScale->unscale(gradients);
}

void copyState(nn::Sequential& from, nn::Optimizer& fromOptimizer, nn::Sequential& to, nn::Optimizer& toOptimizer)
{
    auto& params = to.parameters();
    for (size_t i = 0; i < params.size(); ++i)
        params[i]->value.copyFrom(from.parameters()[i]->value);
    for (size_t i = 0; i < to.states().size(); ++i)
        to.states()[i]->value.copyFrom(from.states()[i]->value);
    fromOptimizer.prepare(from.parameters());
    toOptimizer.prepare(params);
    auto fromSlots = fromOptimizer.stateTensors();
    auto slots = toOptimizer.stateTensors();
    for (size_t i = 0; i < slots.size(); ++i)
        slots[i].second->copyFrom(*fromSlots[i].second);
    toOptimizer.setIterations(fromOptimizer.iterations());
    settle(to.device());
}

void copyFirstReplicaState(std::vector<std::unique_ptr<Replica>>& replicas,
                           std::vector<std::unique_ptr<nn::Optimizer>>& optimizers)
{
    for (size_t r = 1; r < replicas.size(); ++r)
        copyState(replicas[0]->model(), *optimizers[0], replicas[r]->model(), *optimizers[r]);
}

std::vector<double> cpuSecondsOf(const std::vector<std::unique_ptr<Replica>>& replicas)
{
    std::vector<double> out;
    for (const auto& r : replicas)
        out.push_back(r->cpuSeconds());
    return out;
}

int computeThreadsPerReplica(const schema::Experiment& experiment, int replicas, const HostDevices& host)
{
    if (experiment.training.threads > 0)
        return static_cast<int>(experiment.training.threads);
    return std::max(1, host.cores / replicas);
}

std::unique_ptr<nn::Optimizer> createScaledOptimizer(const schema::Experiment& experiment, int replicas)
{
    schema::OptimizerSpec o = experiment.training.optimizer;
    if (experiment.training.lrScaling == "linear")
        o.learningRate *= replicas;
    return nn::createOptimizer(o);
}

schema::PlacementEvent commonPlacement(const Strategy& s, const schema::Experiment& e, int computeThreads)
{
    schema::PlacementEvent placement;
    placement.strategy = s.name();
    const auto& devices = s.devices();
    const int64_t total = s.totalReplicaCount();
    for (size_t r = 0; r < devices.size(); ++r)
        placement.replicas.push_back({static_cast<int64_t>(r), devices[r].str(), computeThreads});
    const double base = e.training.optimizer.learningRate;
    const double scaled = e.training.lrScaling == "linear" ? base * static_cast<double>(total) : base;
    if (e.strategy.type != placement.strategy)
        placement.requestedStrategy = e.strategy.type;
    placement.perReplicaBatchSize = e.training.batchSize;
    placement.globalBatchSize = e.training.batchSize * total;
    placement.learningRate = {base, scaled, e.training.lrScaling};
    const std::string& p = e.training.precision;
    placement.precision = {p, "float32", p == "mixed_bfloat16" ? "bfloat16 tensor cores, float32 accumulation" : p,
                           p == "float32" ? "float32" : "tf32",
                           p == "mixed_bfloat16" ? "dynamic (2^15, x2 after 2000 clean steps)" : "none"};
    return placement;
}

std::vector<schema::PlacementEvent::Variable> variablePlacement(const nn::Sequential& model,
                                                              const std::vector<std::string>& devices)
{
    std::vector<schema::PlacementEvent::Variable> list;
    for (const nn::Parameter* p : model.parameters())
        list.push_back({p->name, p->value.shape().dims(), static_cast<int64_t>(p->value.bytes()), devices, std::nullopt});
    return list;
}

} // namespace strata::distribute
