#pragma once
// Conv2D over (height, width, channels) images (Keras' channels_last); kernel
// (kh, kw, in_channels, filters). The computation is Convolution's.

#include "strata/nn/convolution.h"

namespace strata::nn {

class Conv2D final : public Convolution {
public:
    Conv2D(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng);
};

} // namespace strata::nn
