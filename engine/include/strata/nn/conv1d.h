#pragma once
// Conv1D over (steps, channels) sequences (Keras' channels_last); kernel (k, in_channels,
// filters). Computed by Convolution as a Conv2D over one-row images (as TensorFlow does);
// "causal" padding puts k - 1 zero steps before the sequence.

#include "strata/nn/convolution.h"

namespace strata::nn {

class Conv1D final : public Convolution {
public:
    Conv1D(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng);
};

} // namespace strata::nn
