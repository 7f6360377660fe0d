#pragma once
// AveragePooling2D over NHWC images: the mean of each window's values inside the image (TF's
// "same" counts only those, not the padding). On the CPU through oneDNN (nn/pooling_onednn.h).

#include "strata/nn/layer.h"
#include "strata/nn/window2d.h"

#include <memory>

namespace strata::nn {

class OneDnnPooling;

class AveragePooling2D final : public Layer {
public:
    AveragePooling2D(const schema::LayerSpec& spec, const Shape& inputShape);
    ~AveragePooling2D() override;
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;

private:
    // The GPU path (average_pooling2d_gpu.cpp, through the CUDA module): cuDNN, or a kernel
    // of our own for TF's asymmetric "same".
    void forwardGpu(const Tensor& x);
    void backwardGpu(const Tensor& dy);
    Window2D m_window;
    Shape m_batchInputShape;
    Tensor m_input; // GPU only (cuDNN's backward takes it)
    Tensor m_output;
    Tensor m_gradInput;
    std::unique_ptr<OneDnnPooling> m_pool; // CPU only
};

} // namespace strata::nn
