#pragma once
// Dense: y = activation(x · kernel + bias) over the last axis (kernel: (in, units)).

#include "strata/nn/layer.h"

namespace strata::nn {

class Dense final : public Layer {
public:
    Dense(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;
    Activation outputActivation() const override { return m_activation; }
    void detachOutputActivation() override { m_activation = Activation::Linear; }

private:
    Activation m_activation;
    bool m_useBias;
    Tensor m_input;
    Tensor m_output;
    Tensor m_gradInput;
};

} // namespace strata::nn
