#pragma once
// ZeroPadding2D: NHWC images with rows of zeros added at the top and bottom and columns at the
// left and right; the gradient is the output's gradient cropped back.

#include "strata/nn/layer.h"

namespace strata::nn {

class ZeroPadding2D final : public Layer {
public:
    ZeroPadding2D(const schema::LayerSpec& spec, const Shape& inputShape);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;

private:
    int64_t m_top, m_bottom, m_left, m_right;
    Shape m_batchInputShape;
    Tensor m_output;
    Tensor m_gradInput;
};

} // namespace strata::nn
