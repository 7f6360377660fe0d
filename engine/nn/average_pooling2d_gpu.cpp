// AveragePooling2D on a GPU. Through the CUDA module's ops (average_pooling2d.cpp calls in
// for a tensor on a GPU). cuDNN's COUNT_EXCLUDE_PADDING is TF's "same" when the padding is
// symmetric; TF's asymmetric "same" (one more row or column at the bottom or right) goes to a
// kernel of our own, which the explicit padding used for max pooling cannot replace (padded
// zeros would count).

#include "strata/nn/average_pooling2d.h"

#include "cuda/ops.h"

namespace strata::nn {

namespace {

// cuDNN's geometry: the unpadded input, the top/left padding (cuDNN's own on both sides when
// symmetric; the kernel's top/left otherwise).
cuda::ConvGeometry geometryOf(const Window2D& w, int64_t batch)
{
    return {batch,    w.height,  w.width,   w.channels, w.outHeight, w.outWidth, w.channels,
            w.kernelH, w.kernelW, w.strideH, w.strideW,  w.padTop,    w.padLeft};
}

} // namespace

void AveragePooling2D::forwardGpu(const Tensor& x)
{
    const Device d = x.device();
    const cuda::ConvGeometry g = geometryOf(m_window, x.dim(0));
    m_input = x;
    m_output.ensureShape(m_outputShape.withBatch(x.dim(0)), d);
    if (m_window.symmetric())
        cuda::ops().averagePoolForward(d.index, g, x.data(), m_output.data());
    else
        cuda::ops().averagePoolPaddedForward(d.index, g, x.data(), m_output.data());
}

void AveragePooling2D::backwardGpu(const Tensor& dy)
{
    const Device d = dy.device();
    const cuda::ConvGeometry g = geometryOf(m_window, m_batchInputShape[0]);
    m_gradInput.ensureShape(m_batchInputShape, d);
    if (m_window.symmetric())
        cuda::ops().averagePoolBackward(d.index, g, m_input.data(), m_output.data(), dy.data(), m_gradInput.data());
    else
        cuda::ops().averagePoolPaddedBackward(d.index, g, dy.data(), m_gradInput.data());
}

} // namespace strata::nn
