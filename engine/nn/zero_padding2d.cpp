#include "strata/nn/zero_padding2d.h"

#include "cuda/ops.h"

#include <algorithm>

namespace strata::nn {

ZeroPadding2D::ZeroPadding2D(const schema::LayerSpec& spec, const Shape& inputShape)
    : Layer(spec, inputShape, schema::findLayerType("ZeroPadding2D")->outputShape(spec, inputShape))
{
    const auto p = spec.integers("padding");
    m_top = p[0];
    m_bottom = p[1];
    m_left = p[2];
    m_right = p[3];
}

const Tensor& ZeroPadding2D::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    m_batchInputShape = x.shape();
    const int64_t batch = x.dim(0), h = m_inputShape[0], w = m_inputShape[1], c = m_inputShape[2];
    m_output.ensureShape(m_outputShape.withBatch(batch), x.device());
    if (!x.device().isCpu()) {
        cuda::ops().pad(x.device().index, {batch, h, w, c, m_top, m_bottom, m_left, m_right}, x.data(), 0.0f,
                  m_output.data());
        return m_output;
    }
    const int64_t ow = m_outputShape[1];
    std::fill_n(m_output.data(), m_output.numel(), 0.0f);
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t y = 0; y < h; ++y) {
            const float* src = x.data() + (n * h + y) * w * c;
            float* dst = m_output.data() + ((n * m_outputShape[0] + y + m_top) * ow + m_left) * c;
            std::copy(src, src + w * c, dst);
        }
    return m_output;
}

Tensor ZeroPadding2D::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    const int64_t batch = m_batchInputShape[0], h = m_inputShape[0], w = m_inputShape[1], c = m_inputShape[2];
    m_gradInput.ensureShape(m_batchInputShape, dy.device());
    if (!dy.device().isCpu()) {
        cuda::ops().crop(dy.device().index, {batch, h, w, c, m_top, m_bottom, m_left, m_right}, dy.data(),
                   m_gradInput.data());
        return m_gradInput;
    }
    const int64_t ow = m_outputShape[1];
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t y = 0; y < h; ++y) {
            const float* src = dy.data() + ((n * m_outputShape[0] + y + m_top) * ow + m_left) * c;
            std::copy(src, src + w * c, m_gradInput.data() + (n * h + y) * w * c);
        }
    return m_gradInput;
}

} // namespace strata::nn
