#pragma once
// Global pooling (Keras' keepdims=false): (batch, steps, features) sequences (the 1D layers) or
// (batch, height, width, channels) images (the 2D layers, whose pixels are the steps) to
// (batch, features).

#include "strata/nn/layer.h"

#include <vector>

namespace strata::nn {

// GlobalAveragePooling1D and 2D: the mean over the steps.
class GlobalAveragePooling final : public Layer {
public:
    GlobalAveragePooling(const schema::LayerSpec& spec, const Shape& inputShape);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;

private:
    int64_t m_steps;
    Shape m_batchInputShape;
    Tensor m_output;
    Tensor m_gradInput;
};

// GlobalMaxPooling1D and 2D: the maximum over the steps; the gradient goes to where it came
// from (on the CPU the first of equal maxima; on a GPU cuDNN's choice).
class GlobalMaxPooling final : public Layer {
public:
    GlobalMaxPooling(const schema::LayerSpec& spec, const Shape& inputShape);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;

private:
    int64_t m_steps;
    Shape m_batchInputShape;
    Tensor m_input; // GPU only: cuDNN's backward takes it
    Tensor m_output;
    Tensor m_gradInput;
    std::vector<int64_t> m_argmax; // CPU: the step of each output's maximum
};

} // namespace strata::nn
