#include "strata/nn/dense.h"

#include "affine.h"

namespace strata::nn {

Dense::Dense(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng)
    : Layer(spec, inputShape, schema::findLayerType("Dense")->outputShape(spec, inputShape)),
      m_activation(parseActivation(spec.text("activation"))), m_useBias(spec.flag("use_bias"))
{
    createParameters(rng);
}

const Tensor& Dense::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    m_input = x;
    const int64_t in = m_inputShape.back();
    m_output.ensureShape(m_outputShape.withBatch(x.dim(0)), x.device());
    affine::forward(x.data(), x.numel() / in, in, m_params[0], m_useBias ? &m_params[1] : nullptr, m_activation,
                    m_output.data());
    return m_output;
}

Tensor Dense::backward(Tensor& dy, bool needInputGrad)
{
    const int64_t in = m_inputShape.back();
    if (needInputGrad)
        m_gradInput.ensureShape(m_input.shape(), m_input.device());
    affine::backward(m_input.data(), m_input.numel() / in, in, m_params[0], m_useBias ? &m_params[1] : nullptr,
                     m_activation, m_output.data(), dy.data(), needInputGrad ? m_gradInput.data() : nullptr);
    if (!needInputGrad)
        return {};
    return m_gradInput;
}

} // namespace strata::nn
