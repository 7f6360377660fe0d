#pragma once
// LSTM (Keras' keras.layers.LSTM): gates [i, f, c, o],
//   c_t = f * c_{t-1} + i * activation(c~),  h_t = o * activation(c_t),
// i, f, o through recurrent_activation; unit_forget_bias starts the forget gate's bias at 1.
// The algorithm and its buffers: strata/nn/recurrent.h.

#include "strata/nn/recurrent.h"

namespace strata::nn {

class LSTM final : public RecurrentLayer {
public:
    LSTM(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;

private:
    void forwardBlock(int64_t begin, int64_t end);
    void backwardBlock(const Tensor& dy, int64_t begin, int64_t end, bool needInputGrad);

    Tensor m_cells;    // (batch, steps, units): c_t
    Tensor m_cellActs; // activation(c_t)
    Tensor m_gradH;    // (batch, units): dL/dh_t through step t + 1
    Tensor m_gradC;    // dL/dc_t through step t + 1
};

} // namespace strata::nn
