#pragma once
// GRU (Keras' keras.layers.GRU): gates [z, r, h],
//   h_t = z * h_{t-1} + (1 - z) * h~,
// z, r through recurrent_activation, h~ through activation of
//   reset_after (Keras' default): x·W_h + b_h + r * (h_{t-1}·R_h + b_rh), bias (2, 3 units);
//   otherwise:                    x·W_h + b_h + (r * h_{t-1})·R_h,       bias (3 units).
// The algorithm and its buffers: strata/nn/recurrent.h.

#include "strata/nn/recurrent.h"

namespace strata::nn {

class GRU final : public RecurrentLayer {
public:
    GRU(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;

private:
    void forwardAfter(int64_t begin, int64_t end);
    void backwardAfter(const Tensor& dy, int64_t begin, int64_t end);
    void forwardBefore(int64_t begin, int64_t end);
    void backwardBefore(const Tensor& dy, int64_t begin, int64_t end);

    bool m_resetAfter;
    Tensor m_rec;        // reset_after: (batch, steps, 3 units): h_{t-1}·R (+ b_r in its h part)
    Tensor m_recGrad;    // reset_after: dL/d(h_{t-1}·R + b_r)
    Tensor m_resetH;     // otherwise: (batch, steps, units): r * h_{t-1}
    Tensor m_gradResetH; // otherwise: (batch, units): dL/d(r * h_{t-1}) of one step
    Tensor m_gradH;      // (batch, units): dL/dh_t through step t + 1
};

} // namespace strata::nn
