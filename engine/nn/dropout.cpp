#include "strata/nn/dropout.h"

#include "cuda/ops.h"
#include "strata/core/error.h"

namespace strata::nn {

Dropout::Dropout(const schema::LayerSpec& spec, const Shape& inputShape, uint64_t stream)
    : Layer(spec, inputShape, inputShape), m_rate(static_cast<float>(spec.number("rate"))),
      m_noiseShape(spec.integers("noise_shape")),
      m_stream(spec.isNull("seed") ? stream : static_cast<uint64_t>(spec.integer("seed")))
{
}

Shape Dropout::noiseShapeFor(const Shape& batchShape) const
{
    if (m_noiseShape.empty())
        return batchShape;
    Shape noise = batchShape;
    for (int i = 0; i < noise.rank(); ++i) {
        const int64_t d = m_noiseShape[static_cast<size_t>(i)];
        if (d != 0)
            noise[i] = d; // 1, or the input's size (the spec checked the other axes)
    }
    if (noise[0] != 1 && noise[0] != batchShape[0])
        throw ShapeError("layer \"" + name() + "\" (Dropout): noise_shape's batch entry is " +
                         std::to_string(noise[0]) + " but the batch has " + std::to_string(batchShape[0]) +
                         " examples (use null, or 1 to share the mask across the batch)");
    return noise;
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
    const Shape noise = noiseShapeFor(x.shape());
    if (noise == x.shape()) {
        for (int64_t i = 0; i < x.numel(); ++i)
            mask[i] = rng.uniform() >= m_rate ? keep : 0.0f;
    } else {
        // Draw at the noise shape (row-major), then broadcast: an input element takes the draw at
        // its own index along each axis, and at 0 along the axes where the noise has size 1.
        m_noise.resize(static_cast<size_t>(noise.numel()));
        for (float& v : m_noise)
            v = rng.uniform() >= m_rate ? keep : 0.0f;
        const Shape& full = x.shape();
        for (int64_t i = 0; i < x.numel(); ++i) {
            int64_t rest = i, at = 0, stride = 1;
            for (int axis = full.rank() - 1; axis >= 0; --axis) {
                const int64_t index = rest % full[axis];
                rest /= full[axis];
                at += (noise[axis] == 1 ? 0 : index) * stride;
                stride *= noise[axis];
            }
            mask[i] = m_noise[static_cast<size_t>(at)];
        }
    }
    if (!x.device().isCpu()) {
        m_deviceMask.ensureShape(x.shape(), x.device());
        m_deviceMask.copyFrom(m_mask);
        cuda::ops().multiply(x.device().index, x.data(), m_deviceMask.data(), m_output.data(), x.numel());
        return m_output;
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
        if (!dy.device().isCpu()) {
            cuda::ops().multiply(dy.device().index, dy.data(), m_deviceMask.data(), dy.data(), dy.numel());
            return dy;
        }
        float* g = dy.data();
        const float* mask = m_mask.data();
        for (int64_t i = 0; i < dy.numel(); ++i)
            g[i] *= mask[i];
    }
    return dy;
}

} // namespace strata::nn
