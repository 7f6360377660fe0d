#pragma once
// Strategy: how one training step runs over devices, with tf.distribute's semantics. It owns
// the replicas (models on their devices), where the variables live and the gradient path;
// the trainer hands it global batches and never knows which strategy it has.
//
// Canonical example: MirroredStrategy (distribute/mirrored_strategy.cpp). To add a strategy,
// implement this interface, add its options to schema::StrategySpec and build it in
// run::createStrategy (training/strategy_factory.cpp), which builds every strategy,
// ParameterServer's too (engine/ps holds the strategy a coordinator or worker steps with; the
// tasks' loops are with the other loops, strata/training/parameter_server_tasks.h); the
// equivalence test (tests/engine/tst_strategies.cpp) then checks the single-process ones
// against OneDevice.

#include "strata/core/span_recorder.h"
#include "strata/distribute/communicator.h"
#include "strata/distribute/host_devices.h"
#include "strata/nn/loss.h"
#include "strata/nn/loss_scale.h"
#include "strata/nn/metric.h"
#include "strata/nn/optimizer.h"
#include "strata/nn/sequential.h"
#include "strata/schema/events.h"
#include "strata/schema/experiment.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace strata::distribute {

class ProcessGroup;

struct ReplicaStep {
    std::string device;
    double loss = 0;     // mean loss of this replica's slice (regularization included)
    int64_t samples = 0;
};

// What the trainer knows about a step beyond its batch.
struct StepOptions {
    // Examples in the step's global batch, over every worker (this process's batch when it
    // trains alone): the mean loss's denominator.
    int64_t globalSamples = 0;
    // This task was asked to stop (SIGTERM): a multi-worker job stops together.
    bool stopRequested = false;
};

struct StepOutcome {
    std::vector<ReplicaStep> replicas;
    double lossSum = 0;        // per-example losses summed over the global batch
    double regularization = 0; // L2 penalty at the weights the step used
    int64_t samples = 0;
    double computeMs = 0;      // forward, backward and update (slowest replica)
    double commMs = 0;         // combining the gradients
    bool stop = false;         // some task asked to stop: every task stops after this step
    double loss() const { return lossSum / static_cast<double>(samples) + regularization; }
};

class Strategy {
public:
    virtual ~Strategy() = default;

    // The strategy that runs ("Mirrored" for a TPU experiment with that fallback).
    virtual std::string name() const = 0;
    const std::vector<Device>& devices() const { return m_devices; }
    int replicaCount() const { return static_cast<int>(m_devices.size()); }
    // Replicas of the whole job (every worker's), and the global batch they share.
    virtual int totalReplicaCount() const { return replicaCount(); }
    int64_t globalBatchSize(int64_t perReplica) const { return perReplica * totalReplicaCount(); }
    // The job's process group when the strategy spans several processes, else null.
    virtual ProcessGroup* processGroup() { return nullptr; }

    // One step on a global batch (targets already as the loss wants them): the batch is split
    // among the replicas in order, each computes its gradients, they are combined and the
    // variables updated. Each replica's outputs are added to `metrics`.
    // `x` and `y` are this process's part of the global batch.
    virtual StepOutcome step(const Tensor& x, const Tensor& y, const StepOptions& options,
                             const nn::ForwardContext& ctx, std::vector<std::unique_ptr<nn::Metric>>& metrics) = 0;
    // A step of a process that trains alone.
    StepOutcome step(const Tensor& x, const Tensor& y, const nn::ForwardContext& ctx,
                     std::vector<std::unique_ptr<nn::Metric>>& metrics)
    {
        return step(x, y, StepOptions{x.dim(0), false}, ctx, metrics);
    }

    // The variables as the user sees them: checkpoints, evaluation and predictions use these.
    virtual nn::Sequential& model() = 0;
    virtual nn::Optimizer& optimizer() = 0;
    const nn::Loss& loss() const { return *m_loss; }
    // After model() or optimizer() state was replaced (a restored checkpoint): every replica
    // takes it.
    virtual void synchronize() = 0;

    // The `placement` event: replicas and devices, every variable's devices and bytes, the
    // reduction algorithm, batch sizes, learning rate.
    virtual schema::PlacementEvent placement() const = 0;
    // CPU seconds each replica's thread has used so far (for `device` events).
    virtual std::vector<double> replicaCpuSeconds() const = 0;

    // The step timeline's spans from now on (null: none): replica 0's forward, backward and
    // optimizer on the step lane (it runs on the trainer's thread), the gradients' reduction on
    // the reduce lane, a ParameterServer worker's pull and push on the ps lane.
    virtual void setSpanRecorder(SpanRecorder* spans) { m_spans = spans; }

    // Dynamic loss scaling from now on (training.precision "mixed_bfloat16"); null: none.
    void enableLossScaling() { m_lossScale = std::make_unique<nn::LossScale>(); }
    const nn::LossScale* lossScale() const { return m_lossScale.get(); }
    nn::LossScale* lossScale() { return m_lossScale.get(); }

protected:
    std::vector<Device> m_devices;
    std::unique_ptr<nn::Loss> m_loss;
    std::unique_ptr<nn::LossScale> m_lossScale;
    SpanRecorder* m_spans = nullptr;
};

// Which task of the experiment's cluster this process is, and the job's secret token (for
// strategies that span several processes).
struct TaskContext {
    std::string task = "worker:0";
    std::string token;
};


} // namespace strata::distribute
