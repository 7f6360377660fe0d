#pragma once
// Default (tf.distribute.get_strategy(): no distribution) and OneDevice: one replica on one
// device, computing on the caller's thread. Nothing to combine. On a GPU, model() and
// optimizer() are a host mirror of the device state (pulled by model()).

#include "host_mirror.h"
#include "replica.h"

namespace strata::distribute {

class SingleDeviceStrategy final : public Strategy {
public:
    SingleDeviceStrategy(std::string name, const schema::Experiment& experiment, Device device, int computeThreads);

    std::string name() const override { return m_name; }
    using Strategy::step;
    StepOutcome step(const Tensor& x, const Tensor& y, const StepOptions& options, const nn::ForwardContext& ctx,
                     std::vector<std::unique_ptr<nn::Metric>>& metrics) override;
    nn::Sequential& model() override;
    nn::Optimizer& optimizer() override { return m_mirror ? m_mirror->optimizer() : *m_optimizer; }
    void setSpanRecorder(SpanRecorder* spans) override
    {
        Strategy::setSpanRecorder(spans);
        m_replica->spans = spans;
    }
    void synchronize() override;
    schema::PlacementEvent placement() const override;
    std::vector<double> replicaCpuSeconds() const override { return {m_replica->cpuSeconds()}; }

private:
    std::string m_name;
    schema::Experiment m_experiment;
    int m_threads;
    std::unique_ptr<Replica> m_replica;
    std::unique_ptr<nn::Optimizer> m_optimizer;
    std::unique_ptr<HostMirror> m_mirror; // a GPU replica's state on the host
};

} // namespace strata::distribute
