#include "strata/nn/conv2d.h"

namespace strata::nn {

namespace {
Window2D conv2dWindow(const schema::LayerSpec& spec, const Shape& input)
{
    const Shape output = schema::findLayerType("Conv2D")->outputShape(spec, input);
    return Window2D::make(input, output, spec.pair("kernel_size"), spec.pair("strides"));
}
} // namespace

Conv2D::Conv2D(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng)
    : Convolution(spec, inputShape, conv2dWindow(spec, inputShape), rng)
{
}

} // namespace strata::nn
