#pragma once
// ParameterServerStrategy as a worker or the coordinator sees it: the variables live on the
// ps tasks (sharded and placed by ps/job_layout.h); this process keeps a host copy.
// - step(): pulls every shard, computes the gradients of this worker's batch, pushes them;
//   each ps applies the optimizer to its shards as the push arrives (asynchronous training).
//   The batch alone is the step's global batch: steps run on one worker each.
// - model() / optimizer(): the host copy, refreshed from the ps tasks (values, slots and the
//   iteration count) by fetch(); synchronize() sends the host copy to the ps tasks (the
//   coordinator's initial variables, or a restored checkpoint).
// One thread uses it.

#include "distribute/replica.h"
#include "ps/curve_keys.h"
#include "ps/ps_client.h"

namespace strata::ps {

class ParameterServerStrategy final : public distribute::Strategy {
public:
    ParameterServerStrategy(const schema::Experiment& experiment, const distribute::TaskContext& task, int computeThreads);
    ~ParameterServerStrategy() override;

    std::string name() const override { return "ParameterServer"; }
    int totalReplicaCount() const override { return static_cast<int>(m_layout.workers.size()); }
    using Strategy::step;
    distribute::StepOutcome step(const Tensor& x, const Tensor& y, const distribute::StepOptions& options,
                           const nn::ForwardContext& ctx, std::vector<std::unique_ptr<nn::Metric>>& metrics) override;
    nn::Sequential& model() override { return m_replica->model(); }
    nn::Optimizer& optimizer() override { return *m_optimizer; }
    void setSpanRecorder(SpanRecorder* spans) override
    {
        Strategy::setSpanRecorder(spans);
        m_replica->spans = spans;
    }
    void synchronize() override;
    // The job's placement (the coordinator's event): every variable's shards and ps tasks.
    schema::PlacementEvent placement() const override;
    // A worker's own: its one replica, batch and learning rate.
    schema::PlacementEvent workerPlacement() const;
    std::vector<double> replicaCpuSeconds() const override { return {m_replica->cpuSeconds()}; }

    // The ps tasks' variables, slots and iteration count into model() and optimizer().
    void fetch();
    // The staleness of the last step's push.
    const PushResult& lastPush() const { return m_lastPush; }
    const JobLayout& layout() const { return m_layout; }
    PsClient& client() { return *m_client; }
    zmq::context_t& context() { return m_context; }
    const CurveKeys& keys() const { return m_keys; }

private:
    schema::Experiment m_experiment;
    int m_threads;
    std::unique_ptr<distribute::Replica> m_replica;
    std::unique_ptr<nn::Optimizer> m_optimizer;
    JobLayout m_layout;
    CurveKeys m_keys;
    zmq::context_t m_context;
    std::unique_ptr<PsClient> m_client;
    PushResult m_lastPush;
};

} // namespace strata::ps
