#include "strata/nn/window2d.h"

#include <algorithm>

namespace strata::nn {

Window2D Window2D::make(const Shape& input, const Shape& output, const std::vector<int64_t>& kernel,
                        const std::vector<int64_t>& strides)
{
    Window2D w;
    w.height = input[0];
    w.width = input[1];
    w.channels = input[2];
    w.outHeight = output[0];
    w.outWidth = output[1];
    w.kernelH = kernel[0];
    w.kernelW = kernel[1];
    w.strideH = strides[0];
    w.strideW = strides[1];
    const int64_t padH = std::max<int64_t>((w.outHeight - 1) * w.strideH + w.kernelH - w.height, 0);
    const int64_t padW = std::max<int64_t>((w.outWidth - 1) * w.strideW + w.kernelW - w.width, 0);
    w.padTop = padH / 2;
    w.padLeft = padW / 2;
    w.padBottom = padH - w.padTop;
    w.padRight = padW - w.padLeft;
    return w;
}

Window2D Window2D::pooling(const schema::LayerSpec& spec, const Shape& input, const Shape& output)
{
    const auto pool = spec.pair("pool_size");
    return make(input, output, pool, spec.isNull("strides") ? pool : spec.pair("strides"));
}

} // namespace strata::nn
