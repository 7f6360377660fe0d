#pragma once
// Layer: one step of a Sequential model, with its trainable variables.
//
// Contract (one replica thread owns a layer):
//  - forward(x) returns the output for a batch; it keeps what backward needs (x is kept
//    by reference-counted sharing, so the caller must not write into x afterwards).
//  - backward(dy) is called once after forward with dL/dy. It may overwrite dy. It writes
//    (not accumulates) every parameter's gradient and returns dL/dx, or an empty tensor
//    when `needInputGrad` is false (the first layer).

#include "strata/core/rng.h"
#include "strata/nn/activation.h"
#include "strata/schema/layer_spec.h"
#include "strata/tensor/tensor.h"

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace strata::nn {

// A trainable variable and its gradient.
struct Parameter {
    std::string name; // "dense/kernel"
    Tensor value;
    Tensor grad;
    std::string initializer;
    double l2 = 0; // kernel regularization factor
};

// Sums `values` (host memory) element-wise over every replica of the job, in place, in
// double precision (batch statistics are differences of large sums). Every replica calls it
// at the same points of its step (synchronized BatchNormalization).
using CrossReplicaSum = std::function<void(std::span<double> values)>;

struct ForwardContext {
    bool training = false;
    uint64_t seed = 0;  // the run's seed
    int64_t step = 0;   // global step: with the seed, fixes Dropout's masks (exact resume)
    int replica = 0;    // which replica computes: each draws its own masks
    // Set by the synchronous strategies with more than one replica; null when one replica
    // computes alone (the sum is then its own values).
    const CrossReplicaSum* crossReplicaSum = nullptr;
};

class Layer {
public:
    Layer(schema::LayerSpec spec, Shape inputShape, Shape outputShape);
    virtual ~Layer() = default;
    Layer(const Layer&) = delete;
    Layer& operator=(const Layer&) = delete;

    const schema::LayerSpec& spec() const { return m_spec; }
    const std::string& name() const { return m_spec.name; }
    // Shapes of one example (without the batch dimension).
    const Shape& inputShape() const { return m_inputShape; }
    const Shape& outputShape() const { return m_outputShape; }

    virtual const Tensor& forward(const Tensor& x, const ForwardContext& ctx) = 0;
    virtual Tensor backward(Tensor& gradOutput, bool needInputGrad) = 0;

    std::vector<Parameter>& parameters() { return m_params; }
    const std::vector<Parameter>& parameters() const { return m_params; }
    // Non-trainable variables the layer updates itself while training (BatchNormalization's
    // moving statistics); their `grad` stays empty. Keras orders a layer's weights trainable
    // first, then these.
    std::vector<Parameter>& states() { return m_states; }
    const std::vector<Parameter>& states() const { return m_states; }

    // Which CPU implementation the layer runs, where it has a choice (a convolution's path),
    // for profiles; null otherwise.
    virtual const char* cpuPath() const { return nullptr; }
    // Handing an activation's derivative to the next layer, where that saves a pass over the
    // output (Sequential asks each pair of layers): whether backward() of this layer, whose
    // input came through `a`, can apply a's derivative on the CPU to the gradient it returns
    // (MaxPooling2D can for ReLU, from its own smaller output) ...
    virtual bool canApplyInputActivationGradient(Activation) const { return false; }
    virtual void applyInputActivationGradient() {}
    // ... and the previous layer then leaves it out on the CPU.
    virtual void leaveOutputActivationGradient() {}
    // Fusing an Activation layer into the pass before it (Sequential asks when one follows):
    // whether this layer applies `a` as it writes its output (then it does, on every device,
    // and the Activation layer passes its input on).
    virtual bool absorbOutputActivation(Activation) { return false; }
    virtual void inputAlreadyActivated() {}
    // The activation applied to this layer's output (Linear for layers without one).
    virtual Activation outputActivation() const { return Activation::Linear; }
    // Stops applying the output activation; the model then applies it where needed (used
    // to compute softmax/sigmoid cross-entropy from logits, as Keras does).
    virtual void detachOutputActivation() {}
    // A replica without examples this step (a global batch smaller than the replica count)
    // still takes part in the cross-replica sums the others make: called for the forward
    // pass, then for the backward pass, in the order forward() and backward() would be.
    virtual void joinWithoutData(const ForwardContext& ctx, bool backward, bool needInputGrad)
    {
        (void)ctx, (void)backward, (void)needInputGrad;
    }

protected:
    // Creates the parameters the spec declares, initialized from `rng`.
    void createParameters(Rng& rng);
    void checkInput(const Tensor& x) const;

    schema::LayerSpec m_spec;
    Shape m_inputShape;
    Shape m_outputShape;
    std::vector<Parameter> m_params;
    std::vector<Parameter> m_states;
};

// Builds the layer for `spec` taking examples of `inputShape`; initializes its variables
// from `rng`.
std::unique_ptr<Layer> createLayer(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng);

} // namespace strata::nn
