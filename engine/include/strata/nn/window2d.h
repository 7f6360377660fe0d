#pragma once
// Geometry of a window sliding over NHWC images, shared by the convolutions and the pooling
// layers. A (steps, channels) sequence is a one-row image: Conv1D uses the same geometry.

#include "strata/schema/layer_spec.h"

#include <cstdint>
#include <vector>

namespace strata::nn {

struct Window2D {
    int64_t height = 0, width = 0, channels = 0;        // input
    int64_t outHeight = 0, outWidth = 0;                // output
    int64_t kernelH = 0, kernelW = 0;
    int64_t strideH = 1, strideW = 1;
    int64_t padTop = 0, padLeft = 0;                    // "same" padding (extra goes bottom/right, as TF)
    int64_t padBottom = 0, padRight = 0;

    // The padding TF's "same" needs for `output` (none when the windows fit: "valid").
    static Window2D make(const Shape& input, const Shape& output, const std::vector<int64_t>& kernel,
                         const std::vector<int64_t>& strides);
    // A pooling layer's window: pool_size, strides (null: the pool size), padding.
    static Window2D pooling(const schema::LayerSpec& spec, const Shape& input, const Shape& output);

    bool padded() const { return padTop + padBottom + padLeft + padRight > 0; }
    bool symmetric() const { return padTop == padBottom && padLeft == padRight; }
};

} // namespace strata::nn
