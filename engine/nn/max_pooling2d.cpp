#include "strata/nn/max_pooling2d.h"

#include "cuda/ops.h"
#include "tensor/parallel.h"

#include <algorithm>
#include <limits>

namespace strata::nn {

namespace {

// One image: the maximum of each window, per channel, and where it came from (offsets from
// `base`). Branch-free over channels so it vectorizes; cloned for AVX-512 and AVX2 because
// the engine otherwise builds for baseline x86-64.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
poolImage(const Window2D& g, const float* __restrict in, int32_t base, float* __restrict out,
          int32_t* __restrict arg)
{
    const int64_t c = g.channels;
    const float lowest = -std::numeric_limits<float>::infinity();
    for (int64_t oh = 0; oh < g.outHeight; ++oh) {
        for (int64_t ow = 0; ow < g.outWidth; ++ow) {
            float* o = out + (oh * g.outWidth + ow) * c;
            int32_t* a = arg + (oh * g.outWidth + ow) * c;
            bool first = true; // the window's first position in the input starts the maximum
            for (int64_t kh = 0; kh < g.kernelH; ++kh) {
                const int64_t ih = oh * g.strideH - g.padTop + kh;
                if (ih < 0 || ih >= g.height)
                    continue;
                for (int64_t kw = 0; kw < g.kernelW; ++kw) {
                    const int64_t iw = ow * g.strideW - g.padLeft + kw;
                    if (iw < 0 || iw >= g.width)
                        continue;
                    const int64_t offset = (ih * g.width + iw) * c;
                    const float* v = in + offset;
                    const int32_t at = base + static_cast<int32_t>(offset);
                    if (first) {
                        first = false;
                        for (int64_t ch = 0; ch < c; ++ch) {
                            o[ch] = v[ch];
                            a[ch] = at + static_cast<int32_t>(ch);
                        }
                        continue;
                    }
                    for (int64_t ch = 0; ch < c; ++ch) {
                        const bool greater = v[ch] > o[ch]; // strict: the first maximum wins ties
                        o[ch] = greater ? v[ch] : o[ch];
                        a[ch] = greater ? at + static_cast<int32_t>(ch) : a[ch];
                    }
                }
            }
            if (first) { // a window made only of padding
                std::fill_n(o, c, lowest);
                std::fill_n(a, c, base); // any valid offset
            }
        }
    }
}

// One image's input gradient where the windows do not overlap (strides at least the pool, as
// Keras' default): every input position lies in one window at most, so each is written once,
// in order (the output gradient where it was the maximum, else zero), instead of zeroing the
// whole image and adding into it: one pass over the input gradient, not two.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
unpoolImage(const Window2D& g, const float* __restrict grad, const int32_t* __restrict arg, int32_t base,
            float* __restrict dx)
{
    const int64_t c = g.channels;
    for (int64_t ih = 0; ih < g.height; ++ih) {
        const int64_t oh = (ih + g.padTop) / g.strideH;
        const bool rowInWindow = (ih + g.padTop) % g.strideH < g.kernelH && oh < g.outHeight;
        for (int64_t iw = 0; iw < g.width; ++iw) {
            float* d = dx + (ih * g.width + iw) * c;
            const int64_t ow = (iw + g.padLeft) / g.strideW;
            if (!rowInWindow || (iw + g.padLeft) % g.strideW >= g.kernelW || ow >= g.outWidth) {
                std::fill_n(d, c, 0.0f);
                continue;
            }
            const int64_t o = (oh * g.outWidth + ow) * c;
            const int32_t at = base + static_cast<int32_t>((ih * g.width + iw) * c);
            for (int64_t ch = 0; ch < c; ++ch)
                d[ch] = arg[o + ch] == at + static_cast<int32_t>(ch) ? grad[o + ch] : 0.0f;
        }
    }
}

} // namespace

MaxPooling2D::MaxPooling2D(const schema::LayerSpec& spec, const Shape& inputShape)
    : Layer(spec, inputShape, schema::findLayerType("MaxPooling2D")->outputShape(spec, inputShape)),
      m_window(Window2D::pooling(spec, inputShape, m_outputShape))
{
}

const Tensor& MaxPooling2D::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    if (!x.device().isCpu()) {
        forwardGpu(x);
        return m_output;
    }
    const Window2D& g = m_window;
    const int64_t batch = x.dim(0);
    const int64_t inImage = g.height * g.width * g.channels;
    const int64_t outImage = g.outHeight * g.outWidth * g.channels;
    m_batchInputShape = x.shape();
    m_output.ensureShape(m_outputShape.withBatch(batch));
    m_argmax.resize(static_cast<size_t>(m_output.numel()));
    const float* in = x.data();
    float* out = m_output.data();
    int32_t* arg = m_argmax.data();
#pragma omp parallel for num_threads(parallel::threadsFor(batch * outImage * g.kernelH * g.kernelW)) schedule(static)
    for (int64_t n = 0; n < batch; ++n)
        poolImage(g, in + n * inImage, static_cast<int32_t>(n * inImage), out + n * outImage, arg + n * outImage);
    return m_output;
}

Tensor MaxPooling2D::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    if (!dy.device().isCpu()) {
        backwardGpu(dy);
        return m_gradInput;
    }
    const Window2D& g = m_window;
    const int64_t batch = m_batchInputShape[0];
    const int64_t inImage = g.height * g.width * g.channels;
    const int64_t outImage = g.outHeight * g.outWidth * g.channels;
    m_gradInput.ensureShape(m_batchInputShape);
    float* dx = m_gradInput.data();
    const float* grad = dy.data();
    const int32_t* arg = m_argmax.data();
    const bool disjoint = g.strideH >= g.kernelH && g.strideW >= g.kernelW;
    // Each output's maximum lies in its own image: images can go to different threads.
#pragma omp parallel for num_threads(parallel::threadsFor(batch * inImage)) schedule(static)
    for (int64_t n = 0; n < batch; ++n) {
        if (disjoint) {
            unpoolImage(g, grad + n * outImage, arg + n * outImage, static_cast<int32_t>(n * inImage), dx + n * inImage);
            continue;
        }
        std::fill_n(dx + n * inImage, inImage, 0.0f);
        for (int64_t i = n * outImage; i < (n + 1) * outImage; ++i)
            dx[arg[i]] += grad[i];
    }
    return m_gradInput;
}

} // namespace strata::nn
