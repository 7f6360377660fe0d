#pragma once
// MaxPooling2D over NHWC images; remembers where each maximum came from for backward. On the
// CPU through oneDNN (nn/pooling_onednn.h), on a GPU through cuDNN.

#include "strata/nn/layer.h"
#include "strata/nn/window2d.h"

#include <memory>

namespace strata::nn {

class OneDnnPooling;

class MaxPooling2D final : public Layer {
public:
    MaxPooling2D(const schema::LayerSpec& spec, const Shape& inputShape);
    ~MaxPooling2D() override;
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;
    bool canApplyInputActivationGradient(Activation a) const override { return a == Activation::Relu; }
    void applyInputActivationGradient() override { m_inputRelu = true; }

private:
    // The GPU path (max_pooling2d_gpu.cpp, through the CUDA module): cuDNN on NHWC.
    void forwardGpu(const Tensor& x);
    void backwardGpu(const Tensor& dy);
    Window2D m_window;
    // The input came through a ReLU whose derivative this layer applies: an input's gradient
    // passes only where its window's maximum (its own value) is positive.
    bool m_inputRelu = false;
    Shape m_batchInputShape;
    Tensor m_output;
    Tensor m_gradInput;
    std::unique_ptr<OneDnnPooling> m_pool; // CPU only
    Tensor m_input;                // GPU only: the input (padded with -inf where TF pads)
    Tensor m_gradPadded;
};

} // namespace strata::nn
