#pragma once
// Dropout: while training, zeroes each input with probability `rate` and scales the rest by
// 1 / (1 - rate); identity otherwise. The mask depends only on (seed, layer, step), so a
// resumed run draws the same masks as an uninterrupted one.

#include "strata/nn/layer.h"

namespace strata::nn {

class Dropout final : public Layer {
public:
    Dropout(const spec::LayerSpec& spec, const Shape& inputShape, uint64_t stream);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;

private:
    float m_rate;
    uint64_t m_stream;
    bool m_active = false;
    Tensor m_mask;       // drawn on the host (the same masks on every device)
    Tensor m_deviceMask; // the mask on the input's GPU
    Tensor m_output;
};

} // namespace strata::nn
