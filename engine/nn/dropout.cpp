#include "strata/nn/dropout.h"

namespace strata::nn {

Dropout::Dropout(const spec::LayerSpec& spec, const Shape& inputShape, uint64_t stream)
    : Layer(spec, inputShape, inputShape), m_rate(static_cast<float>(spec.number("rate"))),
      m_stream(spec.isNull("seed") ? stream : static_cast<uint64_t>(spec.integer("seed")))
{
}

const Tensor& Dropout::forward(const Tensor& x, const ForwardContext& ctx)
{
    checkInput(x);
    m_active = ctx.training && m_rate > 0;
    if (!m_active)
        return m_output = x;
    Rng rng(ctx.seed ^ (m_stream * 0x9e3779b97f4a7c15ULL) ^ (static_cast<uint64_t>(ctx.replica) << 48),
            static_cast<uint64_t>(ctx.step));
    m_mask.ensureShape(x.shape());
    m_output.ensureShape(x.shape());
    const float keep = 1.0f / (1.0f - m_rate);
    float* mask = m_mask.data();
    float* y = m_output.data();
    const float* in = x.data();
    for (int64_t i = 0; i < x.numel(); ++i) {
        mask[i] = rng.uniform() >= m_rate ? keep : 0.0f;
        y[i] = in[i] * mask[i];
    }
    return m_output;
}

Tensor Dropout::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    if (m_active) {
        float* g = dy.data();
        const float* mask = m_mask.data();
        for (int64_t i = 0; i < dy.numel(); ++i)
            g[i] *= mask[i];
    }
    return dy;
}

} // namespace strata::nn
