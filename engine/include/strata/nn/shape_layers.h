#pragma once
// Layers that only move values or map them one by one: Flatten, Reshape, Activation.

#include "strata/nn/layer.h"

namespace strata::nn {

// Flatten: a view of the same values as (batch, features).
class Flatten final : public Layer {
public:
    Flatten(const schema::LayerSpec& spec, const Shape& inputShape);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;

private:
    Shape m_batchInputShape;
    Tensor m_output;
};

// Reshape: a view of the same values with the target shape (-1 inferred by the spec).
class Reshape final : public Layer {
public:
    Reshape(const schema::LayerSpec& spec, const Shape& inputShape);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;

private:
    Shape m_batchInputShape;
    Tensor m_output;
};

// Activation: applies a function element-wise (softmax: along the last axis).
class ActivationLayer final : public Layer {
public:
    ActivationLayer(const schema::LayerSpec& spec, const Shape& inputShape);
    const Tensor& forward(const Tensor& x, const ForwardContext& ctx) override;
    Tensor backward(Tensor& gradOutput, bool needInputGrad) override;
    Activation outputActivation() const override { return m_activation; }
    void detachOutputActivation() override { m_activation = Activation::Linear; }
    void leaveOutputActivationGradient() override { m_nextAppliesGradient = true; }
    void inputAlreadyActivated() override { m_inputActivated = true; }
    const char* cpuPath() const override;

private:
    Activation m_activation;
    bool m_inputActivated = false;      // forward() passes its input on
    bool m_nextAppliesGradient = false; // on the CPU, backward() passes the gradient through
    Tensor m_output;
};

} // namespace strata::nn
