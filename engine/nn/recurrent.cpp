#include "strata/nn/recurrent.h"

#include "recurrent_ops.h"
#include "tensor/parallel.h"

namespace strata::nn {

RecurrentLayer::RecurrentLayer(const schema::LayerSpec& spec, const Shape& inputShape, int64_t gates)
    : Layer(spec, inputShape, schema::findLayerType(spec.type)->outputShape(spec, inputShape)),
      m_units(spec.integer("units")), m_steps(inputShape[0]), m_features(inputShape[1]),
      m_gateWidth(gates * spec.integer("units")), m_returnSequences(spec.flag("return_sequences")),
      m_useBias(spec.flag("use_bias")), m_activation(parseActivation(spec.text("activation"))),
      m_recurrentActivation(parseActivation(spec.text("recurrent_activation")))
{
}

void RecurrentLayer::beginForward(const Tensor& x)
{
    checkInput(x);
    m_input = x;
    const Device d = x.device();
    const int64_t b = x.dim(0);
    m_gates.ensureShape({b, m_steps, m_gateWidth}, d);
    m_states.ensureShape({b, m_steps, m_units}, d);
    m_output.ensureShape(m_outputShape.withBatch(b), d);
    m_discard.ensureShape({b, m_units}, d);
    if (m_zeros.empty() || m_zeros.device() != d)
        m_zeros = Tensor::zeros({m_gateWidth}, d);
}

void RecurrentLayer::beginBackward(bool needInputGrad)
{
    if (needInputGrad)
        m_gradInput.ensureShape(m_input.shape(), device());
    m_recurrentT.ensureShape({m_gateWidth, m_units}, device());
    recurrent::transpose(device(), m_params[1].value.data(), m_units, m_gateWidth, m_recurrentT.data());
}

void RecurrentLayer::forBlocks(const std::function<void(int64_t, int64_t)>& f) const
{
    if (!device().isCpu())
        return f(0, batch());
    // Per example: the GEMMs' multiply-adds over all steps.
    parallel::forRanges(batch(), m_steps * m_gateWidth * (m_features + m_units), f);
}

void RecurrentLayer::projectInputs(int64_t begin, int64_t end)
{
    const Device d = device();
    const int64_t rows = (end - begin) * m_steps;
    recurrent::gemm(d, false, false, rows, m_gateWidth, m_features, m_input.data() + begin * m_steps * m_features,
                    m_features, m_params[0].value.data(), m_gateWidth, 0.0f,
                    m_gates.data() + begin * m_steps * m_gateWidth, m_gateWidth);
    // h_{-1} = 0: step 0's previous states.
    recurrent::fillRows(d, stepRows(m_states, m_units, begin, 0), end - begin, m_units, 0.0f);
}

void RecurrentLayer::inputGradient(int64_t begin, int64_t end)
{
    const int64_t rows = (end - begin) * m_steps;
    recurrent::gemm(device(), false, true, rows, m_features, m_gateWidth,
                    m_gates.data() + begin * m_steps * m_gateWidth, m_gateWidth, m_params[0].value.data(),
                    m_gateWidth, 0.0f, m_gradInput.data() + begin * m_steps * m_features, m_features);
}

void RecurrentLayer::forColumnBlocks(const std::function<void(int64_t, int64_t)>& f) const
{
    if (!device().isCpu())
        return f(0, m_gateWidth);
    // Per column: the multiply-adds of both kernels' gradients.
    parallel::forRanges(m_gateWidth, batch() * m_steps * (m_features + m_units), f);
}

void RecurrentLayer::kernelGradient(int64_t begin, int64_t end)
{
    columnsGradient(m_input.data(), m_features, m_gates.data(), m_params[0].grad.data(), begin, end);
}

void RecurrentLayer::columnsGradient(const float* a, int64_t width, const float* b, float* grad, int64_t begin,
                                     int64_t end) const
{
    recurrent::gemm(device(), true, false, width, end - begin, batch() * m_steps, a, width, b + begin, m_gateWidth,
                    0.0f, grad + begin, m_gateWidth);
}

math::Rows RecurrentLayer::stepRows(Tensor& t, int64_t width, int64_t begin, int64_t step)
{
    const int64_t steps = t.dim(1);
    return {t.data() + (begin * steps + step) * width, steps * width};
}

math::Rows RecurrentLayer::outputRows(int64_t begin, int64_t step)
{
    if (m_returnSequences)
        return stepRows(m_output, m_units, begin, step);
    if (step == m_steps - 1)
        return blockRows(m_output, begin);
    return stepRows(m_states, m_units, begin, step + 1);
}

math::Rows RecurrentLayer::outputCopyRows(int64_t begin, int64_t step)
{
    if (m_returnSequences && step + 1 < m_steps)
        return stepRows(m_states, m_units, begin, step + 1);
    return blockRows(m_discard, begin);
}

math::ConstRows RecurrentLayer::outputGradRows(const Tensor& dy, int64_t begin, int64_t step) const
{
    if (m_returnSequences)
        return {dy.data() + (begin * m_steps + step) * m_units, m_steps * m_units};
    if (step == m_steps - 1)
        return {dy.data() + begin * m_units, m_units};
    return zeroRows();
}

math::ConstRows RecurrentLayer::zeroRows() const { return {m_zeros.data(), 0}; }

const float* RecurrentLayer::biasRow(int64_t index) const
{
    if (!m_useBias)
        return m_zeros.data();
    return m_params[2].value.data() + index * m_gateWidth;
}

math::Rows RecurrentLayer::blockRows(Tensor& t, int64_t begin) const
{
    return {t.data() + begin * m_units, m_units};
}

} // namespace strata::nn
