// MaxPooling2D on a GPU: cuDNN's pooling on NHWC, through the CUDA module's ops
// (max_pooling2d.cpp calls in for a tensor on a GPU).

#include "strata/nn/max_pooling2d.h"

#include "cuda/ops.h"

#include <limits>

namespace strata::nn {

namespace {

// "same" pooling pads with -inf explicitly (TF's padding may be asymmetric, which cuDNN's is
// not), so cuDNN pools without padding of its own.
cuda::Padding paddingOf(const Window2D& w, int64_t batch)
{
    return {batch, w.height, w.width, w.channels, w.padTop, w.padBottom, w.padLeft, w.padRight};
}

cuda::ConvGeometry geometryOf(const Window2D& w, int64_t batch)
{
    return {batch,     w.height + w.padTop + w.padBottom, w.width + w.padLeft + w.padRight, w.channels,
            w.outHeight, w.outWidth, w.channels, w.kernelH, w.kernelW, w.strideH, w.strideW, 0, 0};
}

} // namespace

void MaxPooling2D::forwardGpu(const Tensor& x)
{
    const Device d = x.device();
    const int64_t batch = x.dim(0);
    const cuda::ConvGeometry g = geometryOf(m_window, batch);
    m_batchInputShape = x.shape();
    if (m_window.padded()) {
        m_input.ensureShape({g.batch, g.height, g.width, g.channels}, d);
        cuda::ops().pad(d.index, paddingOf(m_window, batch), x.data(), -std::numeric_limits<float>::infinity(),
                  m_input.data());
    } else {
        m_input = x;
    }
    m_output.ensureShape(m_outputShape.withBatch(batch), d);
    cuda::ops().maxPoolForward(d.index, g, m_input.data(), m_output.data());
}

void MaxPooling2D::backwardGpu(const Tensor& dy)
{
    const Device d = dy.device();
    const int64_t batch = m_batchInputShape[0];
    const cuda::ConvGeometry g = geometryOf(m_window, batch);
    m_gradInput.ensureShape(m_batchInputShape, d);
    if (!m_window.padded())
        return cuda::ops().maxPoolBackward(d.index, g, m_input.data(), m_output.data(), dy.data(), m_gradInput.data());
    m_gradPadded.ensureShape(m_input.shape(), d);
    cuda::ops().maxPoolBackward(d.index, g, m_input.data(), m_output.data(), dy.data(), m_gradPadded.data());
    cuda::ops().crop(d.index, paddingOf(m_window, batch), m_gradPadded.data(), m_gradInput.data());
}

} // namespace strata::nn
