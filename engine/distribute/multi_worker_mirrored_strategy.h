#pragma once
// MultiWorkerMirroredStrategy: synchronous data parallelism over several processes (the
// chief and the workers of the cluster), each with one or more local replicas: replicas =
// workers x local devices, every one holding a copy of every variable.
//
// The gradient path is hierarchical: the local replicas' gradients are summed in-process,
// the sum is all-reduced across the workers through Gloo, and the result is broadcast back to
// the local replicas. Gradients travel in buckets (contiguous runs of the gradient buffer,
// last layers first): a bucket's cross-worker all-reduce starts as soon as the backward pass
// has finished its layers and runs while the layers below compute, as PyTorch DDP does.
// The step's loss and metric totals and every task's stop request ride in the first bucket,
// after the gradients (they are known once the forward pass is done), so every task reports
// the job's numbers and all stop at the same step, at no extra collective.
//
// On GPUs (one per task, as torchrun runs a process per GPU) the gradient buckets are
// all-reduced through NCCL on the replica's stream, the totals through Gloo, and model() /
// optimizer() are a host mirror of the device state.

#include "host_mirror.h"
#include "nccl_communicator.h"
#include "replica.h"
#include "replica_sums.h"
#include "strata/distribute/in_process_communicator.h"
#include "strata/distribute/process_group.h"
#include "strata/distribute/reduction_tuner.h"

namespace strata::distribute {

class MultiWorkerMirroredStrategy final : public Strategy {
public:
    MultiWorkerMirroredStrategy(const schema::Experiment& experiment, std::vector<Device> devices, int computeThreads,
                                std::unique_ptr<ProcessGroup> group);

    std::string name() const override { return "MultiWorkerMirrored"; }
    int totalReplicaCount() const override { return replicaCount() * m_group->size(); }
    ProcessGroup* processGroup() override { return m_group.get(); }
    using Strategy::step;
    StepOutcome step(const Tensor& x, const Tensor& y, const StepOptions& options, const nn::ForwardContext& ctx,
                     std::vector<std::unique_ptr<nn::Metric>>& metrics) override;
    nn::Sequential& model() override;
    nn::Optimizer& optimizer() override { return m_mirror ? m_mirror->optimizer() : *m_optimizers[0]; }
    void setSpanRecorder(SpanRecorder* spans) override
    {
        Strategy::setSpanRecorder(spans);
        m_replicas[0]->spans = spans;
        m_group->setSpanRecorder(spans);
    }
    void synchronize() override;
    schema::PlacementEvent placement() const override;
    std::vector<double> replicaCpuSeconds() const override;
    std::optional<StrategyUpdate> takeUpdate() override { return std::exchange(m_update, std::nullopt); }

private:
    struct Bucket {
        size_t begin = 0; // elements of the gradient buffer
        size_t end = 0;
        AllReduceAlgorithm algorithm = AllReduceAlgorithm::Ring; // across the workers (CPU tasks)
    };
    // The buckets of about `bucketBytes`: whole variables from the last one down (the order the
    // backward pass finishes them), the first carrying the step's totals after its gradients.
    std::vector<Bucket> bucketsOf(int64_t bucketBytes) const;
    // Reduces in `choice`'s buckets by its algorithms from the next bucket launched on.
    void use(const ReductionChoice& choice);
    // bucket_bytes "auto": the candidate of step m_steps; at the decision step the chief's
    // choice, broadcast, and the update telling it.
    void tuneBeforeStep();
    StrategyUpdate tunedUpdate() const;
    // Starts the reduction of bucket `b` for local replica `replica`.
    void launch(int replica, const Bucket& b);
    // The replica's loss sum, samples, metric totals and this task's stop request, into
    // `slots` (on CPUs the slots after its gradients, reduced with the first bucket).
    static void writeTotals(Replica& replica, bool stopRequested, std::span<float> slots);
    // The job's totals, once reduced: into `out` and the trainer's metrics.
    static void readTotals(std::span<const float> totals, StepOutcome& out,
                           const std::vector<std::pair<double, double>>& before,
                           std::vector<std::unique_ptr<nn::Metric>>& metrics);
    // The GPU step: NCCL for the gradients, Gloo for the totals.
    void stepOnGpu(Replica& replica, const Tensor& x, const Tensor& y, const StepOptions& options,
                   const nn::ForwardContext& ctx, float scale, double& regularization);
    // The chief's variables, optimizer state and iterations into `model` and `optimizer`.
    void broadcastState(nn::Sequential& model, nn::Optimizer& optimizer);

    schema::Experiment m_experiment;
    int m_threads;
    std::unique_ptr<ProcessGroup> m_group;
    std::unique_ptr<InProcessCommunicator> m_local;
    CollectiveOptions m_localOptions;
    std::vector<std::unique_ptr<Replica>> m_replicas;
    std::vector<std::unique_ptr<nn::Optimizer>> m_optimizers;
    std::vector<size_t> m_parameterOffset; // where each variable's gradient starts in the buffer
    std::vector<Bucket> m_buckets;         // in launch order: the end of the buffer first
    ReductionChoice m_choice;              // what m_buckets are
    std::unique_ptr<ReductionTuner> m_tuner; // bucket_bytes "auto" on CPU tasks
    int64_t m_steps = 0;                     // this process's steps so far
    double m_tunedSpeedup = 1;               // the chief's: the choice's score over the default's
    std::optional<StrategyUpdate> m_update;
    size_t m_extraSlots = 0;
    size_t m_totalSlots = 0;
    std::vector<float> m_hostTotals; // GPU tasks: the step's totals, reduced through Gloo
    std::unique_ptr<DeviceGroup> m_nccl;  // GPU tasks
    std::unique_ptr<HostMirror> m_mirror; // GPU tasks
    std::unique_ptr<ReplicaSums> m_sums;
};

} // namespace strata::distribute
