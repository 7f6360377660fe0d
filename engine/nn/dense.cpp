#include "strata/nn/dense.h"

#include "strata/tensor/blas.h"

namespace strata::nn {

Dense::Dense(const spec::LayerSpec& spec, const Shape& inputShape, Rng& rng)
    : Layer(spec, inputShape, spec::findLayerType("Dense")->outputShape(spec, inputShape)),
      m_activation(parseActivation(spec.text("activation"))), m_useBias(spec.flag("use_bias"))
{
    createParameters(rng);
}

const Tensor& Dense::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    m_input = x;
    const int64_t in = m_inputShape.back();
    const int64_t units = m_outputShape.back();
    const int64_t rows = x.numel() / in;
    m_output.ensureShape(m_outputShape.withBatch(x.dim(0)));
    float* y = m_output.data();
    if (m_useBias) {
        const float* b = m_params[1].value.data();
        for (int64_t r = 0; r < rows; ++r)
            std::copy(b, b + units, y + r * units);
    }
    blas::gemm(blas::Trans::No, blas::Trans::No, rows, units, in, 1.0f, x.data(), m_params[0].value.data(),
               m_useBias ? 1.0f : 0.0f, y);
    activationForward(m_activation, y, rows, units);
    return m_output;
}

Tensor Dense::backward(Tensor& dy, bool needInputGrad)
{
    const int64_t in = m_inputShape.back();
    const int64_t units = m_outputShape.back();
    const int64_t rows = m_input.numel() / in;
    float* dz = dy.data();
    activationBackward(m_activation, m_output.data(), dz, rows, units);

    // dW = x^T dz; db = column sums of dz; dx = dz W^T
    blas::gemm(blas::Trans::Yes, blas::Trans::No, in, units, rows, 1.0f, m_input.data(), dz, 0.0f,
               m_params[0].grad.data());
    if (m_useBias) {
        float* db = m_params[1].grad.data();
        std::fill_n(db, units, 0.0f);
        for (int64_t r = 0; r < rows; ++r) {
            const float* row = dz + r * units;
            for (int64_t j = 0; j < units; ++j)
                db[j] += row[j];
        }
    }
    if (!needInputGrad)
        return {};
    m_gradInput.ensureShape(m_input.shape());
    blas::gemm(blas::Trans::No, blas::Trans::Yes, rows, in, units, 1.0f, dz, m_params[0].value.data(), 0.0f,
               m_gradInput.data());
    return m_gradInput;
}

} // namespace strata::nn
