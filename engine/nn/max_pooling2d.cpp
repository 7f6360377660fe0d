#include "strata/nn/max_pooling2d.h"

#include "pooling_onednn.h"
#include "tensor/parallel.h"

namespace strata::nn {

MaxPooling2D::MaxPooling2D(const schema::LayerSpec& spec, const Shape& inputShape)
    : Layer(spec, inputShape, schema::findLayerType("MaxPooling2D")->outputShape(spec, inputShape)),
      m_window(Window2D::pooling(spec, inputShape, m_outputShape))
{
}

MaxPooling2D::~MaxPooling2D() = default;

const Tensor& MaxPooling2D::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    if (!x.device().isCpu()) {
        forwardGpu(x);
        return m_output;
    }
    m_batchInputShape = x.shape();
    m_output.ensureShape(m_outputShape.withBatch(x.dim(0)));
    if (!m_pool)
        m_pool = std::make_unique<OneDnnPooling>(m_window, OneDnnPooling::Kind::Max);
    m_pool->forward(x.dim(0), x.data(), m_output.data());
    return m_output;
}

Tensor MaxPooling2D::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    if (!dy.device().isCpu()) {
        backwardGpu(dy);
        return m_gradInput;
    }
    if (m_inputRelu) {
        // Where a window's maximum (the input's own value there) is not positive, the ReLU
        // passes no gradient: applied to dy, a quarter of the input's size for 2x2 windows.
        const float* out = m_output.data();
        float* g = dy.data();
        parallel::forRanges(dy.numel(), 1, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i)
                g[i] = out[i] > 0.0f ? g[i] : 0.0f;
        });
    }
    m_gradInput.ensureShape(m_batchInputShape);
    m_pool->backward(m_batchInputShape[0], dy.data(), m_gradInput.data());
    return m_gradInput;
}

} // namespace strata::nn
