#include "strata/nn/shape_layers.h"

#include "cuda/ops.h"

#include <algorithm>

namespace strata::nn {

Flatten::Flatten(const spec::LayerSpec& spec, const Shape& inputShape)
    : Layer(spec, inputShape, {inputShape.numel()})
{
}

const Tensor& Flatten::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    m_batchInputShape = x.shape();
    m_output = x.reshaped(m_outputShape.withBatch(x.dim(0)));
    return m_output;
}

Tensor Flatten::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    return dy.reshaped(m_batchInputShape);
}

GlobalAveragePooling1D::GlobalAveragePooling1D(const spec::LayerSpec& spec, const Shape& inputShape)
    : Layer(spec, inputShape, {inputShape[1]})
{
}

const Tensor& GlobalAveragePooling1D::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    m_batchInputShape = x.shape();
    const int64_t batch = x.dim(0), steps = m_inputShape[0], features = m_inputShape[1];
    m_output.ensureShape({batch, features}, x.device());
    if constexpr (cuda::kBuilt) {
        if (!x.device().isCpu()) {
            cuda::averageSteps(x.device().index, x.data(), batch, steps, features, m_output.data());
            return m_output;
        }
    }
    const float scale = 1.0f / static_cast<float>(steps);
    for (int64_t n = 0; n < batch; ++n) {
        float* out = m_output.data() + n * features;
        std::fill_n(out, features, 0.0f);
        const float* in = x.data() + n * steps * features;
        for (int64_t s = 0; s < steps; ++s)
            for (int64_t f = 0; f < features; ++f)
                out[f] += in[s * features + f];
        for (int64_t f = 0; f < features; ++f)
            out[f] *= scale;
    }
    return m_output;
}

Tensor GlobalAveragePooling1D::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    const int64_t batch = m_batchInputShape[0], steps = m_inputShape[0], features = m_inputShape[1];
    m_gradInput.ensureShape(m_batchInputShape, dy.device());
    if constexpr (cuda::kBuilt) {
        if (!dy.device().isCpu()) {
            cuda::spreadSteps(dy.device().index, dy.data(), batch, steps, features, m_gradInput.data());
            return m_gradInput;
        }
    }
    const float scale = 1.0f / static_cast<float>(steps);
    for (int64_t n = 0; n < batch; ++n) {
        const float* g = dy.data() + n * features;
        float* out = m_gradInput.data() + n * steps * features;
        for (int64_t s = 0; s < steps; ++s)
            for (int64_t f = 0; f < features; ++f)
                out[s * features + f] = g[f] * scale;
    }
    return m_gradInput;
}

ActivationLayer::ActivationLayer(const spec::LayerSpec& spec, const Shape& inputShape)
    : Layer(spec, inputShape, inputShape), m_activation(parseActivation(spec.text("activation")))
{
}

const Tensor& ActivationLayer::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    m_output.ensureShape(x.shape(), x.device());
    m_output.copyFrom(x);
    activationForward(m_activation, m_output.data(), x.numel() / m_inputShape.back(), m_inputShape.back(), x.device());
    return m_output;
}

Tensor ActivationLayer::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    activationBackward(m_activation, m_output.data(), dy.data(), dy.numel() / m_inputShape.back(),
                       m_inputShape.back(), dy.device());
    return dy;
}

} // namespace strata::nn
