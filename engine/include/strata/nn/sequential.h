#pragma once
// Sequential: the layers of a ModelSpec, built and initialized from a seed.
//
// One replica thread uses a model at a time. forward() returns a tensor that stays valid
// until the next forward(); backward() must follow a training forward().

#include "strata/nn/layer.h"
#include "strata/schema/experiment.h"

#include <functional>
#include <memory>
#include <vector>

namespace strata::nn {

class Sequential {
public:
    // Builds every layer; variables are initialized from `seed` (same seed, same weights).
    Sequential(schema::ModelSpec spec, uint64_t seed);

    const schema::ModelSpec& spec() const { return m_spec; }
    const schema::ModelShapes& shapes() const { return m_shapes; }
    const Shape& inputShape() const { return m_spec.inputShape; }
    const Shape& outputShape() const { return m_shapes.output(); }
    size_t layerCount() const { return m_layers.size(); }
    Layer& layer(size_t i) { return *m_layers[i]; }

    const Tensor& forward(const Tensor& x, const ForwardContext& ctx);
    // Back-propagates dL/d(output) (which may be overwritten), writing every gradient.
    // `gradientsFinal(p)`, if given, is called as soon as the gradients of parameters()[p..]
    // are final (after each layer with variables, from the top): their reduction can start
    // while the layers below compute (PyTorch DDP's bucket hooks).
    void backward(Tensor& gradOutput, const std::function<void(size_t)>& gradientsFinal = {});
    // The lowest layer backward() runs: the first with variables (the layers below it need
    // no gradient); its input gradient is not computed.
    size_t firstTrainable() const { return m_firstTrainable; }
    // A step without examples on this replica: the layers' part in the cross-replica sums
    // (Layer::joinWithoutData), forward then backward.
    void joinWithoutData(const ForwardContext& ctx);

    // Every trainable variable, in layer order.
    const std::vector<Parameter*>& parameters() const { return m_parameters; }
    // Every non-trainable variable (Layer::states), in layer order.
    const std::vector<Parameter*>& states() const { return m_states; }
    // Moves every variable to `device` (gradients are left for the owner to place). The
    // model then computes there: its inputs must be on that device too.
    void moveTo(Device device);
    Device device() const;
    int64_t parameterCount() const { return m_shapes.totalParams; }

    // When the output layer ends in softmax (sigmoid) and the loss is the matching
    // cross-entropy on probabilities, computes the loss from logits instead, as Keras does:
    // forward() then returns logits. Returns whether the loss should now take logits.
    bool fuseOutputActivation(const schema::LossSpec& loss);
    // Turns forward() outputs into what the user's model outputs (applies a fused activation).
    void finishPredictions(Tensor& outputs) const;

    // Sum of l2 * ||kernel||^2 over regularized kernels, and adding its gradient 2 * l2 * w.
    double regularizationLoss() const;
    void addRegularizationGradients();

private:
    schema::ModelSpec m_spec;
    schema::ModelShapes m_shapes;
    std::vector<std::unique_ptr<Layer>> m_layers;
    std::vector<Parameter*> m_parameters;
    std::vector<Parameter*> m_states;
    std::vector<size_t> m_firstParameter; // per layer: index of its first variable in m_parameters
    Activation m_fusedActivation = Activation::Linear;
    size_t m_firstTrainable = 0; // layers below it need no backward pass
};

} // namespace strata::nn
