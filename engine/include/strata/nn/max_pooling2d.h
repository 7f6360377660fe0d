#pragma once
// MaxPooling2D over NHWC images; remembers where each maximum came from for backward.

#include "strata/nn/layer.h"
#include "strata/nn/window2d.h"

#include <vector>

namespace strata::nn {

class MaxPooling2D final : public Layer {
public:
    MaxPooling2D(const schema::LayerSpec& spec, const Shape& inputShape);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;

private:
    // The GPU path (max_pooling2d_gpu.cpp, through the CUDA module): cuDNN on NHWC.
    void forwardGpu(const Tensor& x);
    void backwardGpu(const Tensor& dy);
    Window2D m_window;
    Shape m_batchInputShape;
    Tensor m_output;
    Tensor m_gradInput;
    std::vector<int32_t> m_argmax; // input offset (within the batch) of each output's maximum
    Tensor m_input;                // GPU only: the input (padded with -inf where TF pads)
    Tensor m_gradPadded;
};

} // namespace strata::nn
