#pragma once
// Conv2D over NHWC images (Keras' channels_last); kernel (kh, kw, in_channels, filters).
// Computed as im2col followed by one GEMM, whose (pixels x kh*kw*in) · (kh*kw*in x filters)
// product is already the NHWC output.

#include "strata/nn/layer.h"

namespace strata::nn {

// Geometry of a sliding window over NHWC images, shared by Conv2D and MaxPooling2D.
struct Window2D {
    int64_t height = 0, width = 0, channels = 0;        // input
    int64_t outHeight = 0, outWidth = 0;                // output
    int64_t kernelH = 0, kernelW = 0;
    int64_t strideH = 1, strideW = 1;
    int64_t padTop = 0, padLeft = 0;                    // "same" padding (extra goes bottom/right, as TF)
    int64_t padBottom = 0, padRight = 0;

    static Window2D make(const Shape& input, const Shape& output, const std::vector<int64_t>& kernel,
                         const std::vector<int64_t>& strides);
};

class Conv2D final : public Layer {
public:
    Conv2D(const spec::LayerSpec& spec, const Shape& inputShape, Rng& rng);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;
    Activation outputActivation() const override { return m_activation; }
    void detachOutputActivation() override { m_activation = Activation::Linear; }

private:
    bool isPointwise() const;
    // The GPU path (conv2d_gpu.cpp, built with the CUDA backend): cuDNN on NHWC.
    void forwardGpu(const Tensor& x);
    void backwardGpu(Tensor& dy, bool needInputGrad);

    Window2D m_window;
    Activation m_activation;
    bool m_useBias;
    Tensor m_input;
    Tensor m_cols; // im2col of the input (or the input itself for 1x1 stride-1 kernels)
    Tensor m_output;
    Tensor m_gradCols;
    Tensor m_gradInput;
    // GPU only: the input padded for TF's asymmetric "same", the kernel and its gradient in
    // cuDNN's (filters, kh, kw, channels) layout, the padded input's gradient.
    Tensor m_padded;
    Tensor m_kernelKrsc;
    Tensor m_gradKernelKrsc;
    Tensor m_gradPadded;
};

} // namespace strata::nn
