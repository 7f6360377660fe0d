#pragma once
// Replica (internal to the strategies): one copy of the model on one device, with all its
// parameter gradients in one contiguous buffer (one collective per step reduces them all),
// its own metric accumulators, and the thread it computes on (none: the caller's thread).

#include "replica_sums.h"
#include "strata/distribute/replica_thread.h"
#include "strata/distribute/strategy.h"

#include <chrono>
#include <memory>

namespace strata::distribute {

class Replica {
public:
    // `thread`: compute on a thread of its own with `computeThreads` GEMM threads; otherwise
    // on the caller's thread. `extraSlots` values follow the gradients in one buffer, so that
    // they are reduced with them (a multi-worker step's loss and metric totals).
    Replica(int index, Device device, const schema::Experiment& experiment, bool ownThread, int computeThreads,
            int64_t extraSlots = 0);

    int index() const { return m_index; }
    const Device& device() const { return m_device; }
    nn::Sequential& model() { return *m_model; }
    // Every parameter's gradient, contiguous in parameter order, in the memory of the
    // replica's device (device memory for a GPU: for communicators that take it).
    std::span<float> gradients() { return {m_gradients.data(), m_gradientCount}; }
    // The gradients as a tensor on the replica's device.
    Tensor gradientTensor() const { return m_gradients.view(0, {static_cast<int64_t>(m_gradientCount)}); }
    // The gradients followed by the extra slots.
    std::span<float> reductionBuffer() { return {m_gradients.data(), static_cast<size_t>(m_gradients.numel())}; }
    std::span<float> extraSlots() { return m_gradients.values().subspan(m_gradientCount); }
    // This step's metric totals so far (before drainMetrics).
    const std::vector<std::unique_ptr<nn::Metric>>& metrics() const { return m_metrics; }

    // Forward, loss and backward on this replica's slice of the global batch, gradients scaled
    // by `gradScale` (1 / global batch). Records the loss sum and updates the metrics.
    // `gradientsFinal` is the model's backward hook (Sequential::backward).
    void computeGradients(const Tensor& x, const Tensor& y, const nn::Loss& loss, float gradScale,
                          const nn::ForwardContext& ctx, const std::function<void(size_t)>& gradientsFinal = {});
    double lossSum() const { return m_lossSum; }
    int64_t samples() const { return m_samples; }
    // Adds this replica's metric totals into `into` (same order) and resets its own.
    void drainMetrics(std::vector<std::unique_ptr<nn::Metric>>& into);

    // Runs `task` on the replica's thread (or here); wait() finishes it.
    void run(std::function<void()> task);
    void wait();
    double cpuSeconds() const;

    // Where computeGradients records its forward and backward spans (the step lane): set on
    // the replica that runs on the trainer's thread only; null: nowhere.
    SpanRecorder* spans = nullptr;

    // When `task` finished computing its gradients (for the compute/communication split).
    std::chrono::steady_clock::time_point gradientsDone;
    std::chrono::steady_clock::time_point reduced;

private:
    // `t` on this replica's device: itself, or copied into `buffer`.
    const Tensor& onDevice(const Tensor& t, Tensor& buffer) const;

    int m_index;
    Device m_device;
    std::unique_ptr<nn::Sequential> m_model;
    Tensor m_gradients;
    size_t m_gradientCount = 0;
    Tensor m_gradOutput;
    Tensor m_x, m_y; // a GPU replica's slice of the batch, copied to its device
    std::vector<std::unique_ptr<nn::Metric>> m_metrics;
    double m_lossSum = 0;
    int64_t m_samples = 0;
    std::unique_ptr<ReplicaThread> m_thread;
    std::exception_ptr m_inlineError;
};

// Runs `body(r)` for every replica, replica 0 last on the caller's thread, and waits for all.
// A replica that fails aborts `communicator` so the others stop waiting for it; the first
// failure that is not such an abort is rethrown.
void runOnReplicas(std::vector<std::unique_ptr<Replica>>& replicas, Communicator* communicator,
                   const std::function<void(Replica&)>& body);

// The prologue every strategy's step() shares: replica 0 computes on the calling thread with
// `computeThreads` GEMM threads, the step's clock starts, and its outcome holds this process's
// examples (`x`'s rows) and the stop request.
struct StepStart {
    std::chrono::steady_clock::time_point started;
    StepOutcome out;
    double elapsedMs() const;
};
StepStart beginStep(int computeThreads, const Tensor& x, const StepOptions& options);

// `ctx` for the replica that draws its Dropout masks as `replica` and sums across the
// replicas of this process as `sums`' rank `local` (batch normalization).
nn::ForwardContext replicaContext(const nn::ForwardContext& ctx, int replica, const ReplicaSums& sums, int local);

// After a step of every replica: adds each replica's loss sum and per-replica figures to
// `out`, drains their metrics into `metrics`, and sets out.commMs (from the last replica's
// gradients to the last replica having the combined ones).
void gatherReplicaSteps(std::vector<std::unique_ptr<Replica>>& replicas, double regularization,
                        std::vector<std::unique_ptr<nn::Metric>>& metrics, StepOutcome& out);

// The factor a replica's loss gradient is scaled by: 1 / the step's global batch, times the
// loss scale when there is one.
float gradientScale(int64_t globalSamples, const nn::LossScale* lossScale);
// Divides `gradients` by the loss scale when there is one; false when the step must be skipped
// (an overflow).
bool unscaled(const nn::LossScale* lossScale, Tensor gradients);

// Copies `from`'s variables, its optimizer's slots and iteration count into `to` (same model;
// any devices).
void copyState(nn::Sequential& from, nn::Optimizer& fromOptimizer, nn::Sequential& to, nn::Optimizer& toOptimizer);

// Copies replica 0's variables, optimizer slots and iteration count to the other replicas
// (whichever devices they are on).
void copyFirstReplicaState(std::vector<std::unique_ptr<Replica>>& replicas,
                           std::vector<std::unique_ptr<nn::Optimizer>>& optimizers);

// CPU seconds each replica's thread has used.
std::vector<double> cpuSecondsOf(const std::vector<std::unique_ptr<Replica>>& replicas);

// The compute threads a replica's GEMMs use: the experiment's `threads`, or the cores
// divided among the replicas.
int computeThreadsPerReplica(const schema::Experiment& experiment, int replicas, const HostDevices& host);

// The optimizer the experiment names, with its learning rate scaled as it asks.
std::unique_ptr<nn::Optimizer> createScaledOptimizer(const schema::Experiment& experiment, int replicas);

// `placement` fields every strategy shares: this process's replicas, the job's batch sizes and
// learning rate (over every replica of the job).
schema::PlacementEvent commonPlacement(const Strategy& strategy, const schema::Experiment& experiment,
                                       int computeThreads);

// {"name", "shape", "bytes", "devices"} for every variable of `model`.
std::vector<schema::PlacementEvent::Variable> variablePlacement(const nn::Sequential& model,
                                                              const std::vector<std::string>& devices);

} // namespace strata::distribute
