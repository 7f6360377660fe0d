// Conv2D and Conv1D on a GPU: cuDNN's convolutions on NHWC, with the bias and activation of the
// shared affine path. Through the CUDA module's ops (convolution.cpp calls in for a tensor on a GPU).

#include "strata/nn/convolution.h"

#include "cuda/ops.h"

namespace strata::nn {

namespace {

// cuDNN pads symmetrically; TF's "same" may put one more row/column at the bottom/right (and
// Conv1D's "causal" pads the left only), which an explicit zero padding of the input provides.
cuda::Padding paddingOf(const Window2D& w, int64_t batch)
{
    return {batch, w.height, w.width, w.channels, w.padTop, w.padBottom, w.padLeft, w.padRight};
}

cuda::ConvGeometry geometryOf(const Window2D& w, int64_t batch, int64_t filters)
{
    const bool sym = w.symmetric();
    return {batch,
            sym ? w.height : w.height + w.padTop + w.padBottom,
            sym ? w.width : w.width + w.padLeft + w.padRight,
            w.channels,
            w.outHeight,
            w.outWidth,
            filters,
            w.kernelH,
            w.kernelW,
            w.strideH,
            w.strideW,
            sym ? w.padTop : 0,
            sym ? w.padLeft : 0};
}

} // namespace

void Convolution::forwardGpu(const Tensor& x)
{
    const Device d = x.device();
    const int dev = d.index;
    const int64_t batch = x.dim(0);
    const Tensor& kernel = m_params[0].value;
    const int64_t filters = kernel.shape().back();
    const int64_t k = kernel.numel() / filters;
    const cuda::ConvGeometry g = geometryOf(m_window, batch, filters);
    const float* in = x.data();
    if (!m_window.symmetric()) {
        m_padded.ensureShape({g.batch, g.height, g.width, g.channels}, d);
        cuda::ops().pad(dev, paddingOf(m_window, batch), x.data(), 0.0f, m_padded.data());
        in = m_padded.data();
    }
    // Keras' kernel (kh, kw, in, filters) is a (k x filters) matrix; cuDNN wants its transpose.
    m_kernelKrsc.ensureShape({filters, k}, d);
    cuda::ops().transpose(dev, kernel.data(), k, filters, m_kernelKrsc.data());
    const int64_t pixels = batch * m_window.outHeight * m_window.outWidth;
    m_output.ensureShape(m_outputShape.withBatch(batch), d);
    if (m_useBias)
        cuda::ops().broadcastRow(dev, m_params[1].value.data(), filters, m_output.data(), pixels);
    cuda::ops().convForward(dev, g, in, m_kernelKrsc.data(), m_useBias ? 1.0f : 0.0f, m_output.data());
    activationForward(m_activation, m_output.data(), pixels, filters, d);
}

void Convolution::backwardGpu(Tensor& dy, bool needInputGrad)
{
    const Device d = dy.device();
    const int dev = d.index;
    const int64_t batch = m_input.dim(0);
    Parameter& kernel = m_params[0];
    const int64_t filters = kernel.value.shape().back();
    const int64_t k = kernel.value.numel() / filters;
    const cuda::ConvGeometry g = geometryOf(m_window, batch, filters);
    const int64_t pixels = batch * m_window.outHeight * m_window.outWidth;
    activationBackward(m_activation, m_output.data(), dy.data(), pixels, filters, d);
    if (m_useBias)
        cuda::ops().columnSums(dev, dy.data(), pixels, filters, m_params[1].grad.data());
    const bool padded = !m_window.symmetric();
    m_gradKernelKrsc.ensureShape({filters, k}, d);
    cuda::ops().convBackwardFilter(dev, g, padded ? m_padded.data() : m_input.data(), dy.data(), m_gradKernelKrsc.data());
    cuda::ops().transpose(dev, m_gradKernelKrsc.data(), filters, k, kernel.grad.data());
    if (!needInputGrad)
        return;
    m_gradInput.ensureShape(m_input.shape(), d);
    if (!padded)
        return cuda::ops().convBackwardData(dev, g, m_kernelKrsc.data(), dy.data(), m_gradInput.data());
    m_gradPadded.ensureShape(m_padded.shape(), d);
    cuda::ops().convBackwardData(dev, g, m_kernelKrsc.data(), dy.data(), m_gradPadded.data());
    cuda::ops().crop(dev, paddingOf(m_window, batch), m_gradPadded.data(), m_gradInput.data());
}

} // namespace strata::nn
