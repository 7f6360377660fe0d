// Average pooling with TensorFlow's asymmetric "same" padding, which cuDNN's symmetric padding
// cannot express (the symmetric cases go through cuDNN: cudnn_ops.cpp). The window arithmetic
// is nn/math's, shared with the CPU.

#include "launch.cuh"
#include "nn/math/pooling_math.h"
#include "cuda_ops.h"

namespace strata::cuda {

void CudaOps::averagePoolPaddedForward(int device, const ConvGeometry& g, const float* x, float* y)
{
    forEach(device, g.batch * g.outHeight * g.outWidth * g.channels, [=] __device__(int64_t i) {
        const int64_t c = i % g.channels, ow = (i / g.channels) % g.outWidth,
                      oh = (i / (g.channels * g.outWidth)) % g.outHeight,
                      n = i / (g.channels * g.outWidth * g.outHeight);
        const nn::math::Span rows = nn::math::windowSpan(oh, g.strideH, g.padH, g.kernelH, g.height);
        const nn::math::Span cols = nn::math::windowSpan(ow, g.strideW, g.padW, g.kernelW, g.width);
        float sum = 0;
        for (int64_t ih = rows.begin; ih < rows.end; ++ih)
            for (int64_t iw = cols.begin; iw < cols.end; ++iw)
                sum += x[((n * g.height + ih) * g.width + iw) * g.channels + c];
        y[i] = sum / static_cast<float>((rows.end - rows.begin) * (cols.end - cols.begin));
    }, "averagePoolPaddedForward");
}

void CudaOps::averagePoolPaddedBackward(int device, const ConvGeometry& g, const float* dy, float* dx)
{
    forEach(device, g.batch * g.height * g.width * g.channels, [=] __device__(int64_t i) {
        const int64_t c = i % g.channels, iw = (i / g.channels) % g.width, ih = (i / (g.channels * g.width)) % g.height,
                      n = i / (g.channels * g.width * g.height);
        const nn::math::Span outRows = nn::math::outputSpan(ih, g.strideH, g.padH, g.kernelH, g.outHeight);
        const nn::math::Span outCols = nn::math::outputSpan(iw, g.strideW, g.padW, g.kernelW, g.outWidth);
        float sum = 0;
        for (int64_t oh = outRows.begin; oh < outRows.end; ++oh) {
            const nn::math::Span rows = nn::math::windowSpan(oh, g.strideH, g.padH, g.kernelH, g.height);
            for (int64_t ow = outCols.begin; ow < outCols.end; ++ow) {
                const nn::math::Span cols = nn::math::windowSpan(ow, g.strideW, g.padW, g.kernelW, g.width);
                sum += dy[((n * g.outHeight + oh) * g.outWidth + ow) * g.channels + c] /
                       static_cast<float>((rows.end - rows.begin) * (cols.end - cols.begin));
            }
        }
        dx[i] = sum;
    }, "averagePoolPaddedBackward");
}

} // namespace strata::cuda
