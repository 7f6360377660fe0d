#pragma once
// MirroredStrategy: one replica per device, a copy of every variable on each. Every step
// each replica computes the gradients of its slice of the global batch, the gradients are
// summed across replicas (all-reduce, or reduced onto the first device and broadcast), and
// every replica applies the same update to its copy, so the copies stay identical.
// Replica 0 computes on the caller's thread, the others on threads of their own. On GPUs,
// model() and optimizer() are a host mirror of replica 0's state (pulled by model()).

#include "host_mirror.h"
#include "replica.h"
#include "replica_sums.h"


namespace strata::distribute {

class MirroredStrategy final : public Strategy {
public:
    // `communicator` has one rank per device (the in-process one for local replicas).
    MirroredStrategy(const schema::Experiment& experiment, std::vector<Device> devices, int computeThreads,
                     std::unique_ptr<Communicator> communicator);

    std::string name() const override { return "Mirrored"; }
    using Strategy::step;
    StepOutcome step(const Tensor& x, const Tensor& y, const StepOptions& options, const nn::ForwardContext& ctx,
                     std::vector<std::unique_ptr<nn::Metric>>& metrics) override;
    nn::Sequential& model() override;
    nn::Optimizer& optimizer() override { return m_mirror ? m_mirror->optimizer() : *m_optimizers[0]; }
    void setSpanRecorder(SpanRecorder* spans) override
    {
        Strategy::setSpanRecorder(spans);
        m_replicas[0]->spans = spans;
    }
    void synchronize() override;
    schema::PlacementEvent placement() const override;
    std::vector<double> replicaCpuSeconds() const override;

private:
    // Sums the replicas' gradients so that every replica holds the total.
    void combine(int replica);

    schema::Experiment m_experiment;
    int m_threads;
    bool m_reduceToOneDevice;
    CollectiveOptions m_collective;
    std::unique_ptr<Communicator> m_communicator;
    std::vector<std::unique_ptr<Replica>> m_replicas;
    std::vector<std::unique_ptr<nn::Optimizer>> m_optimizers;
    std::unique_ptr<HostMirror> m_mirror; // GPU replicas' state on the host
    std::unique_ptr<ReplicaSums> m_sums;
};

} // namespace strata::distribute
