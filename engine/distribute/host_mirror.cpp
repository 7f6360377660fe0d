#include "host_mirror.h"

#include "replica.h"

namespace strata::distribute {

HostMirror::HostMirror(const schema::Experiment& experiment, std::unique_ptr<nn::Optimizer> optimizer)
    : m_model(experiment.model, experiment.seed), m_optimizer(std::move(optimizer))
{
    m_model.fuseOutputActivation(experiment.training.loss);
}

nn::Sequential& HostMirror::pull(nn::Sequential& model, nn::Optimizer& optimizer)
{
    if (m_stale)
        copyState(model, optimizer, m_model, *m_optimizer);
    m_stale = false;
    return m_model;
}

void HostMirror::push(nn::Sequential& model, nn::Optimizer& optimizer)
{
    copyState(m_model, *m_optimizer, model, optimizer);
    m_stale = false;
}

} // namespace strata::distribute
