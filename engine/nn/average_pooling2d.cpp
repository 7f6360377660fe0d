#include "strata/nn/average_pooling2d.h"

#include "pooling_onednn.h"

namespace strata::nn {

AveragePooling2D::AveragePooling2D(const schema::LayerSpec& spec, const Shape& inputShape)
    : Layer(spec, inputShape, schema::findLayerType("AveragePooling2D")->outputShape(spec, inputShape)),
      m_window(Window2D::pooling(spec, inputShape, m_outputShape))
{
}

AveragePooling2D::~AveragePooling2D() = default;

const Tensor& AveragePooling2D::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    m_batchInputShape = x.shape();
    if (!x.device().isCpu()) {
        forwardGpu(x);
        return m_output;
    }
    m_output.ensureShape(m_outputShape.withBatch(x.dim(0)));
    if (!m_pool)
        m_pool = std::make_unique<OneDnnPooling>(m_window, OneDnnPooling::Kind::Average);
    m_pool->forward(x.dim(0), x.data(), m_output.data());
    return m_output;
}

Tensor AveragePooling2D::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    if (!dy.device().isCpu()) {
        backwardGpu(dy);
        return m_gradInput;
    }
    m_gradInput.ensureShape(m_batchInputShape);
    m_pool->backward(m_batchInputShape[0], dy.data(), m_gradInput.data());
    return m_gradInput;
}

} // namespace strata::nn
