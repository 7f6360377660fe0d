#include "strata/nn/max_pooling2d.h"

#include <algorithm>
#include <limits>

namespace strata::nn {

namespace {
Window2D poolWindow(const spec::LayerSpec& spec, const Shape& input, const Shape& output)
{
    const auto pool = spec.pair("pool_size");
    return Window2D::make(input, output, pool, spec.isNull("strides") ? pool : spec.pair("strides"));
}
} // namespace

MaxPooling2D::MaxPooling2D(const spec::LayerSpec& spec, const Shape& inputShape)
    : Layer(spec, inputShape, spec::findLayerType("MaxPooling2D")->outputShape(spec, inputShape)),
      m_window(poolWindow(spec, inputShape, m_outputShape))
{
}

const Tensor& MaxPooling2D::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    const Window2D& g = m_window;
    const int64_t batch = x.dim(0);
    const int64_t c = g.channels;
    m_batchInputShape = x.shape();
    m_output.ensureShape(m_outputShape.withBatch(batch));
    m_argmax.resize(static_cast<size_t>(m_output.numel()));
    const float* in = x.data();
    float* out = m_output.data();
    int32_t* arg = m_argmax.data();
    const float lowest = -std::numeric_limits<float>::infinity();
    for (int64_t n = 0; n < batch; ++n) {
        const int64_t imageBase = n * g.height * g.width * c;
        for (int64_t oh = 0; oh < g.outHeight; ++oh) {
            for (int64_t ow = 0; ow < g.outWidth; ++ow) {
                const int64_t o = ((n * g.outHeight + oh) * g.outWidth + ow) * c;
                std::fill_n(out + o, c, lowest);
                std::fill_n(arg + o, c, static_cast<int32_t>(imageBase)); // any valid offset for an all-padding window
                for (int64_t kh = 0; kh < g.kernelH; ++kh) {
                    const int64_t ih = oh * g.strideH - g.padTop + kh;
                    if (ih < 0 || ih >= g.height)
                        continue;
                    for (int64_t kw = 0; kw < g.kernelW; ++kw) {
                        const int64_t iw = ow * g.strideW - g.padLeft + kw;
                        if (iw < 0 || iw >= g.width)
                            continue;
                        const int64_t i = imageBase + (ih * g.width + iw) * c;
                        for (int64_t ch = 0; ch < c; ++ch) {
                            if (in[i + ch] > out[o + ch]) {
                                out[o + ch] = in[i + ch];
                                arg[o + ch] = static_cast<int32_t>(i + ch);
                            }
                        }
                    }
                }
            }
        }
    }
    return m_output;
}

Tensor MaxPooling2D::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    m_gradInput.ensureShape(m_batchInputShape);
    m_gradInput.setZero();
    float* dx = m_gradInput.data();
    const float* g = dy.data();
    const int64_t n = dy.numel();
    for (int64_t i = 0; i < n; ++i)
        dx[m_argmax[static_cast<size_t>(i)]] += g[i];
    return m_gradInput;
}

} // namespace strata::nn
