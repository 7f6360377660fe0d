#pragma once
// Dropout: while training, zeroes each input with probability `rate` and scales the rest by
// 1 / (1 - rate); identity otherwise. The mask depends only on (seed, layer, step), so a
// resumed run draws the same masks as an uninterrupted one. With a noise_shape (Keras'), the
// mask is drawn at that shape and broadcast along its axes of size 1 (e.g. [null, 1, features]:
// the same features dropped at every step of an example).

#include "strata/nn/layer.h"

#include <vector>

namespace strata::nn {

class Dropout final : public Layer {
public:
    Dropout(const schema::LayerSpec& spec, const Shape& inputShape, uint64_t stream);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;

private:
    // The drawn mask's shape for a batch of `batchShape`: noise_shape with null entries the
    // input's; throws ShapeError when a fixed batch entry is not this batch's size.
    Shape noiseShapeFor(const Shape& batchShape) const;

    float m_rate;
    std::vector<int64_t> m_noiseShape; // empty: none; 0 for null entries
    uint64_t m_stream;
    bool m_active = false;
    std::vector<float> m_noise; // the draws at the noise shape
    Tensor m_mask;       // drawn on the host (the same masks on every device), broadcast to the input
    Tensor m_deviceMask; // the mask on the input's GPU
    Tensor m_output;
};

} // namespace strata::nn
