#include "multi_worker_mirrored_strategy.h"

#include "cuda/ops.h"
#include "strata/data/shard.h"

#include <cstdio>
#include <sstream>

namespace strata::distribute {

using Clock = std::chrono::steady_clock;

MultiWorkerMirroredStrategy::MultiWorkerMirroredStrategy(const schema::Experiment& experiment, std::vector<Device> devices,
                                                         int computeThreads, std::unique_ptr<ProcessGroup> group)
    : m_experiment(experiment), m_threads(computeThreads), m_group(std::move(group))
{
    m_devices = std::move(devices);
    const int n = replicaCount();
    const bool onGpu = !m_devices.front().isCpu();
    if (onGpu && n != 1)
        throw ConfigError("strategy.devices", "MultiWorkerMirrored on GPUs takes one GPU per task (" +
                                                  std::to_string(n) + " given): run a task per GPU, as torchrun does");
    m_local = std::make_unique<InProcessCommunicator>(n);
    m_localOptions.timeout = m_group->timeout();
    // The step's totals: loss sum, samples, stop, then each metric's total and count. On CPUs
    // they ride with the gradients; on a GPU they stay on the host and go through Gloo.
    m_totalSlots = 3 + 2 * experiment.training.metrics.size();
    const auto extraSlots = onGpu ? int64_t{0} : static_cast<int64_t>(m_totalSlots);
    for (int r = 0; r < n; ++r) {
        // Same seed everywhere: every replica of every worker starts with the same weights.
        m_replicas.push_back(std::make_unique<Replica>(r, m_devices[static_cast<size_t>(r)], experiment, r > 0,
                                                       computeThreads, extraSlots));
        m_optimizers.push_back(createScaledOptimizer(experiment, totalReplicaCount()));
    }
    m_loss = nn::createLoss(experiment.training.loss,
                            m_replicas[0]->model().fuseOutputActivation(experiment.training.loss));
    m_sums = std::make_unique<ReplicaSums>(n, m_group.get(), m_group->timeout());

    size_t offset = 0;
    for (const nn::Parameter* p : m_replicas[0]->model().parameters()) {
        m_parameterOffset.push_back(offset);
        offset += static_cast<size_t>(p->value.numel());
    }
    m_extraSlots = static_cast<size_t>(extraSlots);
    const auto layout = [this](int64_t bytes) {
        std::vector<int64_t> sizes;
        for (const Bucket& b : bucketsOf(bytes))
            sizes.push_back(static_cast<int64_t>((b.end - b.begin) * sizeof(float)));
        return sizes;
    };
    const int64_t bucketBytes = experiment.strategy.bucketBytes;
    if (experiment.strategy.bucketBytesAuto && !onGpu) {
        m_tuner = std::make_unique<ReductionTuner>(reductionCandidates(m_group->size(), bucketBytes, layout),
                                                   static_cast<int64_t>(offset * sizeof(float)));
        m_update = StrategyUpdate{"tuning the gradient buckets and the all-reduce algorithm: " +
                                      std::to_string(m_tuner->candidates().size()) + " candidates over the first " +
                                      std::to_string(m_tuner->decisionStep()) + " steps",
                                  {}, {}};
    } else if (experiment.strategy.bucketBytesAuto) {
        m_update = StrategyUpdate{"bucket_bytes \"auto\" is not tuned on GPUs (NCCL reduces them): buckets of " +
                                      bucketSizeText(bucketBytes) + ", the default",
                                  {}, {}};
    }
    use(m_tuner ? m_tuner->candidates().front().choice : ReductionChoice{bucketBytes, std::nullopt, layout(bucketBytes)});
    if (onGpu) {
        m_hostTotals.resize(m_totalSlots);
        m_nccl = createNcclGroup(*m_group, m_devices.front());
        m_mirror = std::make_unique<HostMirror>(experiment, createScaledOptimizer(experiment, totalReplicaCount()));
    }
}

std::vector<MultiWorkerMirroredStrategy::Bucket> MultiWorkerMirroredStrategy::bucketsOf(int64_t bucketBytes) const
{
    // Each closed once it holds bucketBytes.
    std::vector<Bucket> buckets;
    const auto bucketElements = static_cast<size_t>(bucketBytes) / sizeof(float);
    size_t end = m_replicas[0]->gradients().size();
    for (size_t i = m_parameterOffset.size(); i-- > 0;) {
        const size_t begin = m_parameterOffset[i];
        if (end - begin >= bucketElements || i == 0) {
            buckets.push_back({begin, end});
            end = begin;
        }
    }
    // The totals go with the first bucket: they are known once the forward pass is done.
    buckets.front().end += m_extraSlots;
    return buckets;
}

void MultiWorkerMirroredStrategy::use(const ReductionChoice& choice)
{
    m_choice = choice;
    m_buckets = bucketsOf(choice.bucketBytes);
    const auto algorithms = bucketAlgorithms(choice, m_group->size());
    for (size_t i = 0; i < m_buckets.size(); ++i)
        m_buckets[i].algorithm = algorithms[i];
}

void MultiWorkerMirroredStrategy::tuneBeforeStep()
{
    if (!m_tuner->decided() && m_steps == m_tuner->decisionStep()) {
        // The chief's samples decide, and every rank switches at this same step; every task
        // reports the chief's speedup (each measured its own).
        m_tuner->adopt(m_tuner->decide());
        std::string decision = std::to_string(m_tuner->chosen()) + " " + std::to_string(m_tuner->speedup());
        m_group->broadcast(decision, 0);
        std::istringstream words(decision);
        size_t chosen = 0;
        words >> chosen >> m_tunedSpeedup;
        m_tuner->adopt(chosen);
        m_update = tunedUpdate();
    }
    const ReductionChoice& next = m_tuner->candidates()[m_tuner->candidateAt(m_steps)].choice;
    if (next.bucketBytes != m_choice.bucketBytes || next.algorithm != m_choice.algorithm)
        use(next);
}

StrategyUpdate MultiWorkerMirroredStrategy::tunedUpdate() const
{
    const auto& candidates = m_tuner->candidates();
    const auto described = [&](const ReductionChoice& c) {
        return bucketSizeText(c.bucketBytes) + " (" + std::to_string(c.bucketSizes.size()) + " bucket" +
               (c.bucketSizes.size() == 1 ? "" : "s") + "), " + choiceAlgorithmText(c, m_group->size());
    };
    const size_t chosen = m_tuner->chosen();
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3f", m_tunedSpeedup);
    const std::string message =
        chosen == 0 ? "tuned the gradient buckets: kept the default, " + described(candidates[0].choice) +
                          " (none of the other " + std::to_string(candidates.size() - 1) +
                          " candidates beat it by the margin in enough rounds)"
                    : "tuned the gradient buckets: " + described(candidates[chosen].choice) + ", " + ratio +
                          "x the default's bytes per microsecond (" + described(candidates[0].choice) + ")";
    return {message, "tuning.json", m_tuner->report(m_group->size(), m_group->taskName(m_group->rank())).dump(2) + "\n"};
}

nn::Sequential& MultiWorkerMirroredStrategy::model()
{
    return m_mirror ? m_mirror->pull(m_replicas[0]->model(), *m_optimizers[0]) : m_replicas[0]->model();
}

void MultiWorkerMirroredStrategy::writeTotals(Replica& replica, bool stopRequested, std::span<float> slots)
{
    slots[0] = static_cast<float>(replica.lossSum());
    slots[1] = static_cast<float>(replica.samples());
    slots[2] = stopRequested ? 1.0f : 0.0f;
    const auto& metrics = replica.metrics();
    for (size_t i = 0; i < metrics.size(); ++i) {
        slots[3 + 2 * i] = static_cast<float>(metrics[i]->total());
        slots[4 + 2 * i] = static_cast<float>(metrics[i]->count());
    }
}

void MultiWorkerMirroredStrategy::launch(int replica, const Bucket& b)
{
    const std::span<float> part =
        m_replicas[static_cast<size_t>(replica)]->reductionBuffer().subspan(b.begin, b.end - b.begin);
    if (replicaCount() > 1)
        m_local->reduce(replica, 0, part, m_localOptions);
    if (replica == 0)
        m_group->allReduceQueued(part, b.algorithm);
}

StepOutcome MultiWorkerMirroredStrategy::step(const Tensor& x, const Tensor& y, const StepOptions& options,
                                              const nn::ForwardContext& ctx,
                                              std::vector<std::unique_ptr<nn::Metric>>& metrics)
{
    if (m_tuner)
        tuneBeforeStep();
    StepStart start = beginStep(m_threads, x, options);
    StepOutcome& out = start.out;
    STRATA_CHECK(options.globalSamples > 0, "a multi-worker step needs its global batch size");
    const float scale = gradientScale(options.globalSamples, m_lossScale.get());
    const auto slices = data::splitRows(x.dim(0), replicaCount());
    std::vector<std::pair<double, double>> before;
    for (const auto& m : metrics)
        before.emplace_back(m->total(), m->count());
    double regularization = 0;

    runOnReplicas(m_replicas, m_local.get(), [&](Replica& replica) {
        if (m_nccl)
            return stepOnGpu(replica, x, y, options, ctx, scale, regularization);
        const int r = replica.index();
        const auto [begin, end] = slices[static_cast<size_t>(r)];
        // Dropout masks differ per replica of the whole job.
        const nn::ForwardContext replicaCtx = replicaContext(ctx, m_group->rank() * replicaCount() + r, *m_sums, r);
        size_t launched = 0;
        const auto launchReady = [&](size_t readyFrom) {
            if (launched == 0)
                writeTotals(replica, options.stopRequested, replica.extraSlots());
            while (launched < m_buckets.size() && m_buckets[launched].begin >= readyFrom)
                launch(r, m_buckets[launched++]);
        };
        replica.computeGradients(x.rows(begin, end), y.rows(begin, end), *m_loss, scale, replicaCtx,
                                 [&](size_t firstFinal) { launchReady(m_parameterOffset[firstFinal]); });
        launchReady(0); // a replica without examples, or layers that reported nothing
        replica.gradientsDone = Clock::now();
        SpanRecorder* spans = r == 0 ? m_spans : nullptr; // replica 0 runs on the trainer's thread
        SpanScope wait(spans, TraceLane::Step, "wait");
        if (r == 0)
            m_group->waitQueued();
        if (replicaCount() > 1)
            m_local->broadcast(r, 0, replica.reductionBuffer(), m_localOptions);
        wait.end();
        replica.reduced = Clock::now();
        nn::Sequential& model = replica.model();
        if (r == 0)
            regularization = model.regularizationLoss();
        const SpanScope optimizer(spans, TraceLane::Step, "optimizer");
        model.addRegularizationGradients();
        m_optimizers[static_cast<size_t>(r)]->apply(model.parameters());
    });

    averageStates(m_replicas, m_group.get());
    // commMs: what the last bucket's all-reduce and the local broadcast add after the backward
    // pass (the overlapped part is hidden in the compute time).
    gatherReplicaSteps(m_replicas, regularization, metrics, out);
    readTotals(m_nccl ? std::span<const float>(m_hostTotals) : m_replicas[0]->extraSlots(), out, before, metrics);
    if (m_mirror)
        m_mirror->markStale();
    out.computeMs = start.elapsedMs() - out.commMs;
    if (m_tuner)
        m_tuner->record(m_steps, start.elapsedMs() * 1000);
    ++m_steps;
    return out;
}

void MultiWorkerMirroredStrategy::stepOnGpu(Replica& replica, const Tensor& x, const Tensor& y,
                                            const StepOptions& options, const nn::ForwardContext& ctx, float scale,
                                            double& regularization)
{
    const nn::ForwardContext replicaCtx = replicaContext(ctx, m_group->rank(), *m_sums, 0);
    size_t launched = 0;
    const auto launchReady = [&](size_t readyFrom) {
        while (launched < m_buckets.size() && m_buckets[launched].begin >= readyFrom) {
            const Bucket& b = m_buckets[launched++];
            m_nccl->allReduceQueued(replica.gradients().subspan(b.begin, b.end - b.begin));
        }
    };
    replica.computeGradients(x, y, *m_loss, scale, replicaCtx,
                             [&](size_t firstFinal) { launchReady(m_parameterOffset[firstFinal]); });
    launchReady(0);
    replica.gradientsDone = Clock::now();
    SpanScope wait(m_spans, TraceLane::Step, "wait");
    writeTotals(replica, options.stopRequested, m_hostTotals);
    m_group->allReduce(std::span<float>(m_hostTotals));
    m_nccl->waitQueued();
    wait.end();
    replica.reduced = Clock::now();
    nn::Sequential& model = replica.model();
    regularization = model.regularizationLoss();
    // Every task holds the same sum: all skip an overflowed step, or none.
    const bool finite = unscaled(m_lossScale.get(), replica.gradientTensor());
    if (m_lossScale)
        m_lossScale->update(finite);
    if (!finite)
        return;
    const SpanScope optimizer(m_spans, TraceLane::Step, "optimizer");
    model.addRegularizationGradients();
    m_optimizers[0]->apply(model.parameters());
}

void MultiWorkerMirroredStrategy::readTotals(std::span<const float> totals, StepOutcome& out,
                                             const std::vector<std::pair<double, double>>& before,
                                             std::vector<std::unique_ptr<nn::Metric>>& metrics)
{
    // Summed over every replica of the job.
    out.lossSum = totals[0];
    out.samples = static_cast<int64_t>(totals[1]);
    out.stop = totals[2] > 0;
    for (size_t i = 0; i < metrics.size(); ++i)
        metrics[i]->restore(before[i].first + totals[3 + 2 * i], before[i].second + totals[4 + 2 * i]);
}

void MultiWorkerMirroredStrategy::broadcastState(nn::Sequential& model, nn::Optimizer& optimizer)
{
    for (const auto* list : {&model.parameters(), &model.states()})
        for (nn::Parameter* p : *list)
            m_group->broadcast(p->value.values(), 0);
    optimizer.prepare(model.parameters());
    for (auto& [name, slot] : optimizer.stateTensors())
        m_group->broadcast(slot->values(), 0);
    std::string text = std::to_string(optimizer.iterations());
    m_group->broadcast(text, 0);
    optimizer.setIterations(std::stoll(text));
}

void MultiWorkerMirroredStrategy::synchronize()
{
    // The chief's variables and optimizer state to every worker (through the host copy on a
    // GPU), then to the local replicas.
    if (m_mirror) {
        broadcastState(model(), m_mirror->optimizer());
        m_mirror->push(m_replicas[0]->model(), *m_optimizers[0]);
        return;
    }
    broadcastState(m_replicas[0]->model(), *m_optimizers[0]);
    copyFirstReplicaState(m_replicas, m_optimizers);
}

schema::PlacementEvent MultiWorkerMirroredStrategy::placement() const
{
    auto p = commonPlacement(*this, m_experiment, m_threads);
    auto& job = p.multiWorker.emplace();
    job.task = m_group->taskName(m_group->rank());
    job.workers = m_group->size();
    for (int w = 0; w < m_group->size(); ++w)
        job.tasks.push_back(m_group->taskName(w));
    job.totalReplicas = totalReplicaCount();
    std::vector<std::string> names;
    for (const auto& d : m_devices)
        names.push_back(d.str());
    p.variables = variablePlacement(m_replicas[0]->model(), names);
    const std::string buckets = std::to_string(m_buckets.size()) + " bucket" + (m_buckets.size() == 1 ? "" : "s");
    // Tuning: the algorithm as the candidate now running has it; otherwise the group's rule.
    const std::string across = m_tuner && m_choice.algorithm
                                   ? "Gloo " + choiceAlgorithmText(m_choice, m_group->size()) + " all-reduce over TCP among " +
                                         std::to_string(m_group->size()) + " tasks"
                                   : m_group->algorithm();
    if (m_nccl)
        p.reduction.algorithm = m_nccl->algorithm() + " in " + buckets + "; step totals through " + m_group->algorithm();
    else
        p.reduction.algorithm = (replicaCount() > 1 ? "sum of " + std::to_string(replicaCount()) + " local replicas, then "
                                                    : std::string()) +
                                across + " in " + buckets + " overlapping the backward pass" +
                                (replicaCount() > 1 ? ", then a local broadcast" : "");
    p.reduction.bucketBytes = m_choice.bucketBytes;
    p.reduction.buckets = static_cast<int64_t>(m_buckets.size());
    if (m_tuner) {
        auto& tuning = p.reduction.tuning.emplace();
        tuning.state = m_tuner->decided() ? "tuned" : "tuning";
        tuning.candidates = static_cast<int64_t>(m_tuner->candidates().size());
        tuning.steps = m_tuner->decisionStep();
        tuning.allReduce = choiceAlgorithmText(m_choice, m_group->size());
        tuning.speedup = m_tunedSpeedup;
    }
    p.reduction.bytesPerStep = static_cast<int64_t>(m_replicas[0]->gradients().size() * sizeof(float));
    return p;
}

std::vector<double> MultiWorkerMirroredStrategy::replicaCpuSeconds() const { return cpuSecondsOf(m_replicas); }

} // namespace strata::distribute
