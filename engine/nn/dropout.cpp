#include "strata/nn/dropout.h"

#include "cuda/ops.h"

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
    m_output.ensureShape(x.shape(), x.device());
    const float keep = 1.0f / (1.0f - m_rate);
    float* mask = m_mask.data();
    for (int64_t i = 0; i < x.numel(); ++i)
        mask[i] = rng.uniform() >= m_rate ? keep : 0.0f;
    if constexpr (cuda::kBuilt) {
        if (!x.device().isCpu()) {
            m_deviceMask.ensureShape(x.shape(), x.device());
            m_deviceMask.copyFrom(m_mask);
            cuda::multiply(x.device().index, x.data(), m_deviceMask.data(), m_output.data(), x.numel());
            return m_output;
        }
    }
    float* y = m_output.data();
    const float* in = x.data();
    for (int64_t i = 0; i < x.numel(); ++i)
        y[i] = in[i] * mask[i];
    return m_output;
}

Tensor Dropout::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    if (m_active) {
        if constexpr (cuda::kBuilt) {
            if (!dy.device().isCpu()) {
                cuda::multiply(dy.device().index, dy.data(), m_deviceMask.data(), dy.data(), dy.numel());
                return dy;
            }
        }
        float* g = dy.data();
        const float* mask = m_mask.data();
        for (int64_t i = 0; i < dy.numel(); ++i)
            g[i] *= mask[i];
    }
    return dy;
}

} // namespace strata::nn
