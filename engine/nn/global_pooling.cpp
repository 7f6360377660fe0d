#include "strata/nn/global_pooling.h"

#include "cuda/ops.h"

#include <algorithm>

namespace strata::nn {

namespace {
// The steps pooled over: all axes but the last.
int64_t stepsOf(const Shape& input) { return input.numel() / input.back(); }

// A global max pooling as cuDNN's max pooling with one window the size of the image (a
// sequence is a one-row image).
cuda::ConvGeometry wholeImage(const Shape& input, int64_t batch)
{
    const int64_t h = input.rank() == 3 ? input[0] : 1;
    const int64_t w = input.rank() == 3 ? input[1] : input[0];
    const int64_t c = input.back();
    return {batch, h, w, c, 1, 1, c, h, w, h, w, 0, 0};
}
} // namespace

GlobalAveragePooling::GlobalAveragePooling(const schema::LayerSpec& spec, const Shape& inputShape)
    : Layer(spec, inputShape, schema::findLayerType(spec.type)->outputShape(spec, inputShape)),
      m_steps(stepsOf(inputShape))
{
}

const Tensor& GlobalAveragePooling::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    m_batchInputShape = x.shape();
    const int64_t batch = x.dim(0), steps = m_steps, features = m_inputShape.back();
    m_output.ensureShape({batch, features}, x.device());
    if (!x.device().isCpu()) {
        cuda::ops().averageSteps(x.device().index, x.data(), batch, steps, features, m_output.data());
        return m_output;
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

Tensor GlobalAveragePooling::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    const int64_t batch = m_batchInputShape[0], steps = m_steps, features = m_inputShape.back();
    m_gradInput.ensureShape(m_batchInputShape, dy.device());
    if (!dy.device().isCpu()) {
        cuda::ops().spreadSteps(dy.device().index, dy.data(), batch, steps, features, m_gradInput.data());
        return m_gradInput;
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

GlobalMaxPooling::GlobalMaxPooling(const schema::LayerSpec& spec, const Shape& inputShape)
    : Layer(spec, inputShape, schema::findLayerType(spec.type)->outputShape(spec, inputShape)),
      m_steps(stepsOf(inputShape))
{
}

const Tensor& GlobalMaxPooling::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    m_batchInputShape = x.shape();
    const int64_t batch = x.dim(0), steps = m_steps, features = m_inputShape.back();
    m_output.ensureShape({batch, features}, x.device());
    if (!x.device().isCpu()) {
        m_input = x;
        cuda::ops().maxPoolForward(x.device().index, wholeImage(m_inputShape, batch), x.data(), m_output.data());
        return m_output;
    }
    m_argmax.resize(static_cast<size_t>(batch * features));
    for (int64_t n = 0; n < batch; ++n) {
        const float* in = x.data() + n * steps * features;
        float* out = m_output.data() + n * features;
        int64_t* arg = m_argmax.data() + n * features;
        std::copy(in, in + features, out);
        std::fill_n(arg, features, 0);
        for (int64_t s = 1; s < steps; ++s)
            for (int64_t f = 0; f < features; ++f) {
                const float v = in[s * features + f];
                const bool greater = v > out[f]; // strict: the first maximum wins ties
                out[f] = greater ? v : out[f];
                arg[f] = greater ? s : arg[f];
            }
    }
    return m_output;
}

Tensor GlobalMaxPooling::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    const int64_t batch = m_batchInputShape[0], steps = m_steps, features = m_inputShape.back();
    m_gradInput.ensureShape(m_batchInputShape, dy.device());
    if (!dy.device().isCpu()) {
        cuda::ops().maxPoolBackward(dy.device().index, wholeImage(m_inputShape, batch), m_input.data(), m_output.data(),
                              dy.data(), m_gradInput.data());
        return m_gradInput;
    }
    float* dx = m_gradInput.data();
    std::fill_n(dx, m_gradInput.numel(), 0.0f);
    for (int64_t n = 0; n < batch; ++n)
        for (int64_t f = 0; f < features; ++f)
            dx[(n * steps + m_argmax[static_cast<size_t>(n * features + f)]) * features + f] =
                dy.data()[n * features + f];
    return m_gradInput;
}

} // namespace strata::nn
