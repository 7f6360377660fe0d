#include "strata/nn/shape_layers.h"

namespace strata::nn {

Flatten::Flatten(const schema::LayerSpec& spec, const Shape& inputShape)
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

Reshape::Reshape(const schema::LayerSpec& spec, const Shape& inputShape)
    : Layer(spec, inputShape, schema::findLayerType("Reshape")->outputShape(spec, inputShape))
{
}

const Tensor& Reshape::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    m_batchInputShape = x.shape();
    m_output = x.reshaped(m_outputShape.withBatch(x.dim(0)));
    return m_output;
}

Tensor Reshape::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    return dy.reshaped(m_batchInputShape);
}

ActivationLayer::ActivationLayer(const schema::LayerSpec& spec, const Shape& inputShape)
    : Layer(spec, inputShape, inputShape), m_activation(parseActivation(spec.text("activation")))
{
}

const Tensor& ActivationLayer::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    if (m_inputActivated) {
        m_output = x; // shares the memory: backward reads the activated values from it
        return m_output;
    }
    m_output.ensureShape(x.shape(), x.device());
    m_output.copyFrom(x);
    activationForward(m_activation, m_output.data(), x.numel() / m_inputShape.back(), m_inputShape.back(), x.device());
    return m_output;
}

const char* ActivationLayer::cpuPath() const
{
    if (m_inputActivated && m_nextAppliesGradient)
        return "fused: applied in the previous layer's pass, its derivative in the next layer's";
    if (m_inputActivated)
        return "fused: applied in the previous layer's pass";
    if (m_nextAppliesGradient)
        return "its derivative applied in the next layer's pass";
    return nullptr;
}

Tensor ActivationLayer::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    if (!(m_nextAppliesGradient && dy.device().isCpu()))
        activationBackward(m_activation, m_output.data(), dy.data(), dy.numel() / m_inputShape.back(),
                           m_inputShape.back(), dy.device());
    return dy;
}

} // namespace strata::nn
