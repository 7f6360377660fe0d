#include "strata/nn/sequential.h"

#include "cuda/ops.h"

namespace strata::nn {

Sequential::Sequential(schema::ModelSpec spec, uint64_t seed)
    : m_spec(std::move(spec)), m_shapes(schema::checkedShapes(m_spec))
{
    Shape current = m_spec.inputShape;
    for (size_t i = 0; i < m_spec.layers.size(); ++i) {
        // One random stream per layer: adding a layer does not change the others' weights.
        Rng rng(seed, i + 1);
        m_layers.push_back(createLayer(m_spec.layers[i], current, rng));
        current = m_layers.back()->outputShape();
    }
    for (auto& layer : m_layers) {
        m_firstParameter.push_back(m_parameters.size());
        for (auto& p : layer->parameters())
            m_parameters.push_back(&p);
        for (auto& s : layer->states())
            m_states.push_back(&s);
    }
    for (size_t i = 0; i + 1 < m_layers.size(); ++i) {
        // An Activation layer's function applied by the layer before it, in its output pass.
        if (m_spec.layers[i + 1].type == "Activation" &&
            m_layers[i]->absorbOutputActivation(m_layers[i + 1]->outputActivation()))
            m_layers[i + 1]->inputAlreadyActivated();
        // An activation's derivative applied by the layer after it, to its own gradient.
        const Activation a = m_layers[i]->outputActivation();
        if (a != Activation::Linear && m_layers[i + 1]->canApplyInputActivationGradient(a)) {
            m_layers[i + 1]->applyInputActivationGradient();
            m_layers[i]->leaveOutputActivationGradient();
        }
    }
    m_firstTrainable = 0;
    while (m_firstTrainable + 1 < m_layers.size() && m_layers[m_firstTrainable]->parameters().empty())
        ++m_firstTrainable;
}

void Sequential::moveTo(Device device)
{
    for (Parameter* p : m_parameters)
        p->value = p->value.to(device);
    for (Parameter* s : m_states)
        s->value = s->value.to(device);
}

Device Sequential::device() const { return m_parameters.empty() ? Device::cpu() : m_parameters[0]->value.device(); }

const Tensor& Sequential::forward(const Tensor& x, const ForwardContext& ctx)
{
    const Tensor* current = &x;
    for (auto& layer : m_layers)
        current = &layer->forward(*current, ctx);
    return *current;
}

void Sequential::backward(Tensor& gradOutput, const std::function<void(size_t)>& gradientsFinal)
{
    Tensor grad = gradOutput;
    // Below the first layer with variables no gradient is needed (a Flatten under the first
    // Dense would otherwise cost a third of an MLP's training FLOPs).
    for (size_t i = m_layers.size(); i-- > m_firstTrainable;) {
        grad = m_layers[i]->backward(grad, i > m_firstTrainable);
        if (gradientsFinal && !m_layers[i]->parameters().empty())
            gradientsFinal(m_firstParameter[i]);
        if (grad.empty())
            break; // nothing below needs a gradient (e.g. an Embedding's integer input)
    }
}

void Sequential::joinWithoutData(const ForwardContext& ctx)
{
    for (auto& layer : m_layers)
        layer->joinWithoutData(ctx, false, false);
    for (size_t i = m_layers.size(); i-- > m_firstTrainable;)
        m_layers[i]->joinWithoutData(ctx, true, i > m_firstTrainable);
}

bool Sequential::fuseOutputActivation(const schema::LossSpec& loss)
{
    // Asking again gives the same answer: the activation is already detached.
    if (loss.fromLogits || m_fusedActivation != Activation::Linear)
        return true;
    Layer& last = *m_layers.back();
    const Activation a = last.outputActivation();
    const bool categorical = loss.type == "sparse_categorical_crossentropy" || loss.type == "categorical_crossentropy";
    if ((categorical && a == Activation::Softmax) || (loss.type == "binary_crossentropy" && a == Activation::Sigmoid)) {
        last.detachOutputActivation();
        m_fusedActivation = a;
        return true;
    }
    return false;
}

void Sequential::finishPredictions(Tensor& outputs) const
{
    const int64_t width = outputs.shape().back();
    activationForward(m_fusedActivation, outputs.data(), outputs.numel() / width, width, outputs.device());
}

double Sequential::regularizationLoss() const
{
    double sum = 0;
    for (const Parameter* p : m_parameters) {
        if (p->l2 <= 0)
            continue;
        double squares = 0;
        if (!p->value.device().isCpu()) {
            sum += p->l2 * cuda::ops().sumOfSquares(p->value.device().index, p->value.data(), p->value.numel());
            continue;
        }
        for (float v : p->value.values())
            squares += static_cast<double>(v) * v;
        sum += p->l2 * squares;
    }
    return sum;
}

void Sequential::addRegularizationGradients()
{
    for (Parameter* p : m_parameters) {
        if (p->l2 <= 0)
            continue;
        const float factor = static_cast<float>(2.0 * p->l2);
        if (!p->value.device().isCpu()) {
            cuda::ops().axpy(p->value.device().index, factor, p->value.data(), p->grad.data(), p->value.numel());
            continue;
        }
        float* g = p->grad.data();
        const float* w = p->value.data();
        for (int64_t i = 0; i < p->value.numel(); ++i)
            g[i] += factor * w[i];
    }
}

} // namespace strata::nn
