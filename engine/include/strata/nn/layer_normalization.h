#pragma once
// LayerNormalization over the last axis (Keras' axis=-1): each example's features normalized
// to mean 0 and variance 1 (population variance, plus epsilon), then times gamma plus beta,
// each of the last dimension's size (either may be off: scale, center).

#include "strata/nn/layer.h"

namespace strata::nn {

class LayerNormalization final : public Layer {
public:
    LayerNormalization(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;

private:
    // gamma (when scale is on) and beta (when center is on), or null.
    Parameter* gamma() { return m_scale ? &m_params[0] : nullptr; }
    Parameter* beta() { return m_center ? &m_params[m_scale ? 1 : 0] : nullptr; }

    bool m_scale;
    bool m_center;
    float m_epsilon;
    Tensor m_normalized; // xhat, for the backward
    Tensor m_invStd;     // 1 / sqrt(var + epsilon) per row
    Tensor m_output;
    Tensor m_gradInput;
    Tensor m_product;    // GPU only: dy * xhat, whose column sums are gamma's gradient
};

} // namespace strata::nn
