#pragma once
// The convolution machinery Conv2D and Conv1D share: NHWC images (a sequence is a one-row
// image), Keras' kernel layout (kh, kw, in_channels, filters), whose memory is that of
// Conv1D's (k, in_channels, filters). On the CPU: oneDNN's Winograd or direct convolution
// (nn/convolution_onednn.h, which says which), else im2col followed by one GEMM, whose
// (pixels x kh*kw*in) · (kh*kw*in x filters) product is already the NHWC output; on a GPU:
// cuDNN (convolution_gpu.cpp).

#include "strata/nn/layer.h"
#include "strata/nn/window2d.h"

#include <memory>

namespace strata::nn {

enum class ConvAlgorithm;
class OneDnnConvolution;

class Convolution : public Layer {
public:
    ~Convolution() override;
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;
    const char* cpuPath() const override;
    void leaveOutputActivationGradient() override;
    Activation outputActivation() const override { return m_activation; }
    void detachOutputActivation() override { m_activation = Activation::Linear; }

protected:
    // `window`: the geometry over the input seen as images; the output shape is the layer
    // type's. Creates the kernel (and bias) the spec declares.
    Convolution(const schema::LayerSpec& spec, const Shape& inputShape, const Window2D& window, Rng& rng);

private:
    bool isPointwise() const;
    // The oneDNN convolution ready for `batch`, or null where im2col + GEMM is the path.
    OneDnnConvolution* onednnFor(int64_t batch);
    // The GPU path (convolution_gpu.cpp, through the CUDA module): cuDNN on NHWC.
    void forwardGpu(const Tensor& x);
    void backwardGpu(Tensor& dy, bool needInputGrad);

    Window2D m_window;
    Activation m_activation;
    bool m_useBias;
    ConvAlgorithm m_algorithm;
    bool m_nextAppliesActivationGradient = false;
    std::unique_ptr<OneDnnConvolution> m_onednn;
    Tensor m_input;
    Tensor m_cols; // im2col of the input (or the input itself for 1x1 stride-1 kernels)
    Tensor m_output;
    Tensor m_gradCols;
    Tensor m_gradInput;
    // GPU only: the input padded for TF's asymmetric "same" (and Conv1D's "causal"), the
    // kernel and its gradient in cuDNN's (filters, kh, kw, channels) layout, the padded
    // input's gradient.
    Tensor m_padded;
    Tensor m_kernelKrsc;
    Tensor m_gradKernelKrsc;
    Tensor m_gradPadded;
};

} // namespace strata::nn
