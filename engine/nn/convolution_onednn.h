#pragma once
// A convolution on the CPU through oneDNN's own primitives (forward, backward data, backward
// weights) on the engine's NHWC tensors and Keras' (kh, kw, in, filters) kernels. Direct
// convolutions read and write NHWC in place; Winograd's want blocked layouts, into which the
// input and the output gradient are reordered once per step and kept for the passes that
// reuse them. Primitives are built once per batch size and thread count.

#include "strata/nn/window2d.h"
#include "tensor/onednn.h"

#include <cstdint>
#include <memory>

namespace strata::nn {

enum class ConvAlgorithm { Im2colGemm, Direct, Winograd };
const char* convAlgorithmName(ConvAlgorithm a);

// The CPU path for a geometry: the rule docs/decisions.md derives from measurement ("Which
// convolution path"), the same in every process so that runs with one seed stay identical;
// STRATA_CONV_ALGORITHM (im2col, direct, winograd) overrides it.
ConvAlgorithm chooseConvAlgorithm(const Window2D& g, int64_t filters);

class OneDnnConvolution {
public:
    // Throws dnnl::error when oneDNN has no implementation of `algorithm` for `g`. `relu`:
    // the forward pass applies ReLU to its output as it writes it.
    OneDnnConvolution(const Window2D& g, int64_t filters, bool bias, bool relu, ConvAlgorithm algorithm);
    ~OneDnnConvolution();

    // y (NHWC) = x (NHWC) * kernel + bias (through ReLU if asked), for `batch` images.
    void forward(int64_t batch, const float* x, const float* kernel, const float* bias, float* y);
    // After forward with the same x: the kernel's and bias' gradients from dy (NHWC), and dx
    // when it is not null.
    void backward(int64_t batch, const float* x, const float* dy, const float* kernel, float* gradKernel,
                  float* gradBias, float* dx);

    // Builds the primitives for `batch` at the calling thread's thread count (the first
    // forward does it otherwise); throws as the constructor does.
    void prepare(int64_t batch);

private:
    struct Plan;
    Plan& plan(int64_t batch);
    std::unique_ptr<Plan> build(int64_t batch) const;

    Window2D m_window;
    int64_t m_filters;
    bool m_bias;
    bool m_relu;
    ConvAlgorithm m_algorithm;
    onednn::Plans<Plan> m_plans;
};

} // namespace strata::nn
