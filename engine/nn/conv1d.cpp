#include "strata/nn/conv1d.h"

namespace strata::nn {

namespace {
// The sequence as a (1, steps, channels) image.
Window2D conv1dWindow(const schema::LayerSpec& spec, const Shape& input)
{
    const Shape output = schema::findLayerType("Conv1D")->outputShape(spec, input);
    const int64_t k = spec.integer("kernel_size");
    Window2D w = Window2D::make({1, input[0], input[1]}, {1, output[0], output[1]}, {1, k}, {1, spec.integer("strides")});
    if (spec.text("padding") == "causal") {
        // Keras pads k - 1 steps on the left, then convolves "valid": output t sees steps up to t * stride.
        w.padLeft = k - 1;
        w.padRight = 0;
    }
    return w;
}
} // namespace

Conv1D::Conv1D(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng)
    : Convolution(spec, inputShape, conv1dWindow(spec, inputShape), rng)
{
}

} // namespace strata::nn
