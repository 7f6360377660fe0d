#pragma once
// CentralStorageStrategy: the variables exist once, on the parameter device. Every step the
// compute replicas read their current values, compute the gradients of their slices, the
// gradients are summed onto the parameter device, and one update is applied there.
// Logical CPU devices share memory, so replicas read the central variables in place. GPU
// replicas (variables on the CPU, compute on the GPUs) copy the variables in before each
// step and their gradients out after it. Replica 0 computes on the caller's thread, the
// others on threads of their own.

#include "replica.h"
#include "replica_sums.h"

namespace strata::distribute {

class CentralStorageStrategy final : public Strategy {
public:
    CentralStorageStrategy(const schema::Experiment& experiment, std::vector<Device> computeDevices,
                           Device parameterDevice, int computeThreads);

    std::string name() const override { return "CentralStorage"; }
    using Strategy::step;
    StepOutcome step(const Tensor& x, const Tensor& y, const StepOptions& options, const nn::ForwardContext& ctx,
                     std::vector<std::unique_ptr<nn::Metric>>& metrics) override;
    nn::Sequential& model() override { return *m_central; }
    nn::Optimizer& optimizer() override { return *m_optimizer; }
    // The replicas read the central variables themselves; they take the central moving statistics.
    void setSpanRecorder(SpanRecorder* spans) override
    {
        Strategy::setSpanRecorder(spans);
        m_replicas[0]->spans = spans;
    }
    void synchronize() override;
    schema::PlacementEvent placement() const override;
    std::vector<double> replicaCpuSeconds() const override;

private:
    schema::Experiment m_experiment;
    int m_threads;
    Device m_parameterDevice;
    std::unique_ptr<nn::Sequential> m_central;
    Tensor m_centralGradients;
    std::vector<Tensor> m_hostGradients; // GPU replicas' gradients, copied to the CPU
    std::vector<std::unique_ptr<Replica>> m_replicas;
    std::unique_ptr<nn::Optimizer> m_optimizer;
    std::unique_ptr<ReplicaSums> m_sums;
};

} // namespace strata::distribute
