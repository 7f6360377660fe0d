#include "strata/nn/layer_normalization.h"

#include "cuda/ops.h"
#include "nn/math/layer_norm_math.h"
#include "tensor/parallel.h"

#include <algorithm>

namespace strata::nn {

LayerNormalization::LayerNormalization(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng)
    : Layer(spec, inputShape, inputShape), m_scale(spec.flag("scale")), m_center(spec.flag("center")),
      m_epsilon(static_cast<float>(spec.number("epsilon")))
{
    createParameters(rng); // gamma, then beta (Keras' order)
}

const Tensor& LayerNormalization::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    const Device d = x.device();
    const int64_t width = m_inputShape.back(), rows = x.numel() / width;
    const float* gamma = this->gamma() ? this->gamma()->value.data() : nullptr;
    const float* beta = this->beta() ? this->beta()->value.data() : nullptr;
    m_normalized.ensureShape(x.shape(), d);
    m_invStd.ensureShape({rows}, d);
    m_output.ensureShape(x.shape(), d);
    if (!d.isCpu()) {
        cuda::ops().layerNormForward(d.index, x.data(), rows, width, m_epsilon, gamma, beta, m_normalized.data(),
                               m_invStd.data(), m_output.data());
        return m_output;
    }
    const float* in = x.data();
    float* xhat = m_normalized.data();
    float* inv = m_invStd.data();
    float* out = m_output.data();
    parallel::forRanges(rows, 4 * width, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r)
            inv[r] = math::layerNormRow(in + r * width, width, m_epsilon, gamma, beta, xhat + r * width,
                                        out + r * width);
    });
    return m_output;
}

Tensor LayerNormalization::backward(Tensor& dy, bool needInputGrad)
{
    const Device d = dy.device();
    const int64_t width = m_inputShape.back(), rows = dy.numel() / width;
    Parameter* gammaParam = this->gamma();
    Parameter* betaParam = this->beta();
    const float* gamma = gammaParam ? gammaParam->value.data() : nullptr;
    if (!d.isCpu()) {
        if (gammaParam) {
            m_product.ensureShape(dy.shape(), d);
            cuda::ops().multiply(d.index, dy.data(), m_normalized.data(), m_product.data(), dy.numel());
            cuda::ops().columnSums(d.index, m_product.data(), rows, width, gammaParam->grad.data());
        }
        if (betaParam)
            cuda::ops().columnSums(d.index, dy.data(), rows, width, betaParam->grad.data());
        if (!needInputGrad)
            return {};
        m_gradInput.ensureShape(dy.shape(), d);
        cuda::ops().layerNormBackward(d.index, m_normalized.data(), m_invStd.data(), gamma, dy.data(), rows, width,
                                m_gradInput.data());
        return m_gradInput;
    }
    const float* g = dy.data();
    const float* xhat = m_normalized.data();
    // gamma's gradient: sum over rows of dy * xhat; beta's: sum of dy.
    if (gammaParam) {
        float* dg = gammaParam->grad.data();
        std::fill_n(dg, width, 0.0f);
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < width; ++j)
                dg[j] += g[r * width + j] * xhat[r * width + j];
    }
    if (betaParam) {
        float* db = betaParam->grad.data();
        std::fill_n(db, width, 0.0f);
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < width; ++j)
                db[j] += g[r * width + j];
    }
    if (!needInputGrad)
        return {};
    m_gradInput.ensureShape(dy.shape());
    float* dx = m_gradInput.data();
    const float* inv = m_invStd.data();
    parallel::forRanges(rows, 6 * width, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r)
            math::layerNormBackwardRow(xhat + r * width, inv[r], gamma, g + r * width, width, dx + r * width);
    });
    return m_gradInput;
}

} // namespace strata::nn
