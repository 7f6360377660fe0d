#include "strata/nn/convolution.h"

#include "affine.h"
#include "convolution_onednn.h"
#include "cuda/ops.h"
#include "tensor/parallel.h"

#include <dnnl.hpp>

#include <algorithm>
#include <cstring>

namespace strata::nn {

namespace {

// Writes, for every output pixel, the kh*kw*c window of the input as one row (zero outside).
void im2col(const Window2D& g, int64_t batch, const float* x, float* cols)
{
    const int64_t rowLen = g.kernelH * g.kernelW * g.channels;
    const int64_t span = g.kernelW * g.channels; // one kernel row: contiguous in NHWC
#pragma omp parallel for num_threads(parallel::threadsFor(batch * g.outHeight * g.outWidth * rowLen)) schedule(static)
    for (int64_t n = 0; n < batch; ++n) {
        const float* image = x + n * g.height * g.width * g.channels;
        for (int64_t oh = 0; oh < g.outHeight; ++oh) {
            for (int64_t ow = 0; ow < g.outWidth; ++ow) {
                float* row = cols + ((n * g.outHeight + oh) * g.outWidth + ow) * rowLen;
                const int64_t iw0 = ow * g.strideW - g.padLeft;
                for (int64_t kh = 0; kh < g.kernelH; ++kh) {
                    float* dst = row + kh * span;
                    const int64_t ih = oh * g.strideH - g.padTop + kh;
                    if (ih < 0 || ih >= g.height) {
                        std::memset(dst, 0, static_cast<size_t>(span) * sizeof(float));
                        continue;
                    }
                    const float* src = image + ih * g.width * g.channels;
                    if (iw0 >= 0 && iw0 + g.kernelW <= g.width) {
                        std::memcpy(dst, src + iw0 * g.channels, static_cast<size_t>(span) * sizeof(float));
                        continue;
                    }
                    for (int64_t kw = 0; kw < g.kernelW; ++kw) {
                        const int64_t iw = iw0 + kw;
                        float* d = dst + kw * g.channels;
                        if (iw < 0 || iw >= g.width)
                            std::memset(d, 0, static_cast<size_t>(g.channels) * sizeof(float));
                        else
                            std::memcpy(d, src + iw * g.channels, static_cast<size_t>(g.channels) * sizeof(float));
                    }
                }
            }
        }
    }
}

// The adjoint of im2col: adds every row back onto the input positions it was read from.
void col2im(const Window2D& g, int64_t batch, const float* cols, float* dx)
{
    const int64_t rowLen = g.kernelH * g.kernelW * g.channels;
    const int64_t span = g.kernelW * g.channels;
    // Each image's rows add only into that image: images can go to different threads.
#pragma omp parallel for num_threads(parallel::threadsFor(batch * g.outHeight * g.outWidth * rowLen)) schedule(static)
    for (int64_t n = 0; n < batch; ++n) {
        float* image = dx + n * g.height * g.width * g.channels;
        std::fill_n(image, g.height * g.width * g.channels, 0.0f);
        for (int64_t oh = 0; oh < g.outHeight; ++oh) {
            for (int64_t ow = 0; ow < g.outWidth; ++ow) {
                const float* row = cols + ((n * g.outHeight + oh) * g.outWidth + ow) * rowLen;
                const int64_t iw0 = ow * g.strideW - g.padLeft;
                for (int64_t kh = 0; kh < g.kernelH; ++kh) {
                    const int64_t ih = oh * g.strideH - g.padTop + kh;
                    if (ih < 0 || ih >= g.height)
                        continue;
                    const float* src = row + kh * span;
                    float* dst = image + ih * g.width * g.channels;
                    if (iw0 >= 0 && iw0 + g.kernelW <= g.width) {
                        float* d = dst + iw0 * g.channels;
                        for (int64_t i = 0; i < span; ++i)
                            d[i] += src[i];
                        continue;
                    }
                    for (int64_t kw = 0; kw < g.kernelW; ++kw) {
                        const int64_t iw = iw0 + kw;
                        if (iw < 0 || iw >= g.width)
                            continue;
                        float* d = dst + iw * g.channels;
                        const float* s = src + kw * g.channels;
                        for (int64_t c = 0; c < g.channels; ++c)
                            d[c] += s[c];
                    }
                }
            }
        }
    }
}

} // namespace

Convolution::Convolution(const schema::LayerSpec& spec, const Shape& inputShape, const Window2D& window, Rng& rng)
    : Layer(spec, inputShape, schema::findLayerType(spec.type)->outputShape(spec, inputShape)), m_window(window),
      m_activation(parseActivation(spec.text("activation"))), m_useBias(spec.flag("use_bias")),
      m_algorithm(chooseConvAlgorithm(window, m_outputShape.back()))
{
    createParameters(rng);
}

Convolution::~Convolution() = default;

void Convolution::leaveOutputActivationGradient()
{
    // Both CPU paths leave it out; the GPU path applies it anyway, as the next layer there
    // does not.
    m_nextAppliesActivationGradient = true;
}

const char* Convolution::cpuPath() const { return convAlgorithmName(m_algorithm); }

OneDnnConvolution* Convolution::onednnFor(int64_t batch)
{
    while (m_algorithm != ConvAlgorithm::Im2colGemm) {
        try {
            if (!m_onednn)
                m_onednn = std::make_unique<OneDnnConvolution>(m_window, m_outputShape.back(), m_useBias,
                                                               m_activation == Activation::Relu, m_algorithm);
            m_onednn->prepare(batch);
            return m_onednn.get();
        } catch (const dnnl::error&) {
            // No implementation on this machine (Winograd wants AVX-512): the next path down.
            m_onednn.reset();
            m_algorithm = m_algorithm == ConvAlgorithm::Winograd ? ConvAlgorithm::Direct : ConvAlgorithm::Im2colGemm;
        }
    }
    return nullptr;
}

bool Convolution::isPointwise() const
{
    return m_window.kernelH == 1 && m_window.kernelW == 1 && m_window.strideH == 1 && m_window.strideW == 1;
}

const Tensor& Convolution::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    m_input = x;
    if (!x.device().isCpu()) {
        forwardGpu(x);
        return m_output;
    }
    const int64_t batch = x.dim(0);
    const int64_t pixels = batch * m_window.outHeight * m_window.outWidth;
    const int64_t k = m_window.kernelH * m_window.kernelW * m_window.channels;
    m_output.ensureShape(m_outputShape.withBatch(batch));
    if (OneDnnConvolution* conv = onednnFor(batch)) {
        conv->forward(batch, x.data(), m_params[0].value.data(), m_useBias ? m_params[1].value.data() : nullptr,
                      m_output.data());
        if (m_activation != Activation::Relu) // oneDNN applied ReLU as it wrote the output
            activationForward(m_activation, m_output.data(), pixels, m_outputShape.back());
        return m_output;
    }
    if (isPointwise()) {
        m_cols = x.reshaped({pixels, k});
    } else {
        m_cols.ensureShape({pixels, k});
        im2col(m_window, batch, x.data(), m_cols.data());
    }
    affine::forward(m_cols.data(), pixels, k, m_params[0], m_useBias ? &m_params[1] : nullptr, m_activation,
                    m_output.data());
    return m_output;
}

Tensor Convolution::backward(Tensor& dy, bool needInputGrad)
{
    if (!dy.device().isCpu()) {
        backwardGpu(dy, needInputGrad);
        return needInputGrad ? m_gradInput : Tensor{};
    }
    const int64_t batch = m_input.dim(0);
    const int64_t pixels = batch * m_window.outHeight * m_window.outWidth;
    const int64_t k = m_window.kernelH * m_window.kernelW * m_window.channels;
    if (needInputGrad)
        m_gradInput.ensureShape(m_input.shape());
    // The activation's derivative, unless the next layer applied it (Layer::leaveOutputActivationGradient).
    const Activation activation = m_nextAppliesActivationGradient ? Activation::Linear : m_activation;
    if (OneDnnConvolution* conv = onednnFor(batch)) {
        activationBackward(activation, m_output.data(), dy.data(), pixels, m_outputShape.back());
        conv->backward(batch, m_input.data(), dy.data(), m_params[0].value.data(), m_params[0].grad.data(),
                       m_useBias ? m_params[1].grad.data() : nullptr, needInputGrad ? m_gradInput.data() : nullptr);
        return needInputGrad ? m_gradInput : Tensor{};
    }
    float* gradCols = nullptr;
    if (needInputGrad) {
        // A pointwise kernel's columns are the input itself: its gradient needs no col2im.
        if (isPointwise()) {
            gradCols = m_gradInput.data();
        } else {
            m_gradCols.ensureShape({pixels, k});
            gradCols = m_gradCols.data();
        }
    }
    affine::backward(m_cols.data(), pixels, k, m_params[0], m_useBias ? &m_params[1] : nullptr, activation,
                     m_output.data(), dy.data(), gradCols);
    if (!needInputGrad)
        return {};
    if (!isPointwise())
        col2im(m_window, batch, m_gradCols.data(), m_gradInput.data());
    return m_gradInput;
}

} // namespace strata::nn
