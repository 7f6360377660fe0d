#include "strata/run/train_step.h"

namespace strata::run {

TrainStep::TrainStep(nn::Sequential& model, const nn::Loss& loss, nn::Optimizer& optimizer)
    : m_model(model), m_loss(loss), m_optimizer(optimizer)
{
}

StepResult TrainStep::run(const Tensor& x, const Tensor& y, const nn::ForwardContext& ctx)
{
    StepResult r;
    r.samples = x.dim(0);
    const Tensor& out = m_model.forward(x, ctx);
    m_gradOutput.ensureShape(out.shape());
    r.lossSum = m_loss.compute(out, y, &m_gradOutput, 1.0f / static_cast<float>(r.samples));
    if (m_metrics)
        for (auto& m : *m_metrics)
            m->update(out, y);
    r.regularization = m_model.regularizationLoss();
    m_model.backward(m_gradOutput);
    m_model.addRegularizationGradients();
    m_optimizer.apply(m_model.parameters());
    return r;
}

} // namespace strata::run
