#include "strata/nn/average_pooling2d.h"

#include "cuda/ops.h"
#include "nn/math/pooling_math.h"
#include "tensor/parallel.h"

#include <algorithm>

namespace strata::nn {

namespace {

using math::Span;
using math::windowSpan;

// The window of output (oh, ow): its rows and columns inside the image.
struct Cell {
    Span rows, cols;
    float scale; // 1 / the number of pixels inside
};

Cell cellOf(const Window2D& g, int64_t oh, int64_t ow)
{
    const Span rows = windowSpan(oh, g.strideH, g.padTop, g.kernelH, g.height);
    const Span cols = windowSpan(ow, g.strideW, g.padLeft, g.kernelW, g.width);
    return {rows, cols, 1.0f / static_cast<float>((rows.end - rows.begin) * (cols.end - cols.begin))};
}

} // namespace

AveragePooling2D::AveragePooling2D(const schema::LayerSpec& spec, const Shape& inputShape)
    : Layer(spec, inputShape, schema::findLayerType("AveragePooling2D")->outputShape(spec, inputShape)),
      m_window(Window2D::pooling(spec, inputShape, m_outputShape))
{
}

const Tensor& AveragePooling2D::forward(const Tensor& x, const ForwardContext&)
{
    checkInput(x);
    m_batchInputShape = x.shape();
    if (!x.device().isCpu()) {
        forwardGpu(x);
        return m_output;
    }
    const Window2D& g = m_window;
    const int64_t batch = x.dim(0), c = g.channels;
    const int64_t inImage = g.height * g.width * c, outImage = g.outHeight * g.outWidth * c;
    m_output.ensureShape(m_outputShape.withBatch(batch));
    const float* in = x.data();
    float* out = m_output.data();
#pragma omp parallel for num_threads(parallel::threadsFor(batch * outImage * g.kernelH * g.kernelW)) schedule(static)
    for (int64_t n = 0; n < batch; ++n) {
        const float* image = in + n * inImage;
        for (int64_t oh = 0; oh < g.outHeight; ++oh)
            for (int64_t ow = 0; ow < g.outWidth; ++ow) {
                const Cell cell = cellOf(g, oh, ow);
                float* o = out + n * outImage + (oh * g.outWidth + ow) * c;
                std::fill_n(o, c, 0.0f);
                for (int64_t ih = cell.rows.begin; ih < cell.rows.end; ++ih)
                    for (int64_t iw = cell.cols.begin; iw < cell.cols.end; ++iw) {
                        const float* v = image + (ih * g.width + iw) * c;
                        for (int64_t ch = 0; ch < c; ++ch)
                            o[ch] += v[ch];
                    }
                for (int64_t ch = 0; ch < c; ++ch)
                    o[ch] *= cell.scale;
            }
    }
    return m_output;
}

Tensor AveragePooling2D::backward(Tensor& dy, bool needInputGrad)
{
    if (!needInputGrad)
        return {};
    if (!dy.device().isCpu()) {
        backwardGpu(dy);
        return m_gradInput;
    }
    const Window2D& g = m_window;
    const int64_t batch = m_batchInputShape[0], c = g.channels;
    const int64_t inImage = g.height * g.width * c, outImage = g.outHeight * g.outWidth * c;
    m_gradInput.ensureShape(m_batchInputShape);
    float* dx = m_gradInput.data();
    const float* grad = dy.data();
    // Each output's window lies in its own image: images can go to different threads.
#pragma omp parallel for num_threads(parallel::threadsFor(batch * outImage * g.kernelH * g.kernelW)) schedule(static)
    for (int64_t n = 0; n < batch; ++n) {
        float* image = dx + n * inImage;
        std::fill_n(image, inImage, 0.0f);
        for (int64_t oh = 0; oh < g.outHeight; ++oh)
            for (int64_t ow = 0; ow < g.outWidth; ++ow) {
                const Cell cell = cellOf(g, oh, ow);
                const float* gy = grad + n * outImage + (oh * g.outWidth + ow) * c;
                for (int64_t ih = cell.rows.begin; ih < cell.rows.end; ++ih)
                    for (int64_t iw = cell.cols.begin; iw < cell.cols.end; ++iw) {
                        float* d = image + (ih * g.width + iw) * c;
                        for (int64_t ch = 0; ch < c; ++ch)
                            d[ch] += gy[ch] * cell.scale;
                    }
            }
    }
    return m_gradInput;
}

} // namespace strata::nn
