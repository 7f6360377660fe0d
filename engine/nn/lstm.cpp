#include "strata/nn/lstm.h"

#include "recurrent_ops.h"

#include <algorithm>

namespace strata::nn {

LSTM::LSTM(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng) : RecurrentLayer(spec, inputShape, 4)
{
    createParameters(rng);
    if (m_useBias && spec.flag("unit_forget_bias")) {
        // Keras: the forget gate's block of the bias starts at 1, whatever bias_initializer says.
        float* forget = m_params[2].value.data() + m_units;
        std::fill(forget, forget + m_units, 1.0f);
    }
}

const Tensor& LSTM::forward(const Tensor& x, const ForwardContext&)
{
    beginForward(x);
    const Device d = x.device();
    m_cells.ensureShape(m_states.shape(), d);
    m_cellActs.ensureShape(m_states.shape(), d);
    forBlocks([this](int64_t begin, int64_t end) { forwardBlock(begin, end); });
    return m_output;
}

void LSTM::forwardBlock(int64_t begin, int64_t end)
{
    const Device d = device();
    const int64_t rows = end - begin;
    const int64_t g = m_gateWidth;
    const float* recurrentKernel = m_params[1].value.data();
    projectInputs(begin, end);
    for (int64_t t = 0; t < m_steps; ++t) {
        const math::Rows gates = stepRows(m_gates, g, begin, t);
        if (t > 0) { // h_{-1} = 0 adds nothing
            const math::Rows h = stepRows(m_states, m_units, begin, t);
            recurrent::gemm(d, false, false, rows, g, m_units, h.data, h.stride, recurrentKernel, g, 1.0f, gates.data,
                            gates.stride);
        }
        math::LstmForwardStep s;
        s.rows = rows;
        s.units = m_units;
        s.gates = gates;
        s.bias = biasRow(0);
        s.cPrev = t > 0 ? math::readOnly(stepRows(m_cells, m_units, begin, t - 1)) : zeroRows();
        s.c = stepRows(m_cells, m_units, begin, t);
        s.actC = stepRows(m_cellActs, m_units, begin, t);
        s.h = outputRows(begin, t);
        s.hCopy = outputCopyRows(begin, t);
        recurrent::lstmForward(d, m_activation, m_recurrentActivation, s);
    }
}

Tensor LSTM::backward(Tensor& dy, bool needInputGrad)
{
    beginBackward(needInputGrad);
    const Device d = device();
    m_gradH.ensureShape({batch(), m_units}, d);
    m_gradC.ensureShape({batch(), m_units}, d);
    forBlocks([&](int64_t begin, int64_t end) { backwardBlock(dy, begin, end, needInputGrad); });
    // m_gates now holds dL/d(pre-activations) of every step: the parameters' gradients over
    // all steps at once (the recurrent kernel's from the previous outputs, shifted a step).
    forColumnBlocks([this](int64_t begin, int64_t end) {
        kernelGradient(begin, end);
        columnsGradient(m_states.data(), m_units, m_gates.data(), m_params[1].grad.data(), begin, end);
    });
    if (m_useBias)
        recurrent::columnSums(d, m_gates.data(), batch() * m_steps, m_gateWidth, m_params[2].grad.data());
    if (!needInputGrad)
        return {};
    return m_gradInput;
}

void LSTM::backwardBlock(const Tensor& dy, int64_t begin, int64_t end, bool needInputGrad)
{
    const Device d = device();
    const int64_t rows = end - begin;
    const int64_t g = m_gateWidth;
    const float* recurrentT = m_recurrentT.data();
    const math::Rows gradH = blockRows(m_gradH, begin);
    const math::Rows gradC = blockRows(m_gradC, begin);
    recurrent::fillRows(d, gradH, rows, m_units, 0.0f);
    recurrent::fillRows(d, gradC, rows, m_units, 0.0f);
    for (int64_t t = m_steps - 1; t >= 0; --t) {
        const math::Rows gates = stepRows(m_gates, g, begin, t);
        math::LstmBackwardStep s;
        s.rows = rows;
        s.units = m_units;
        s.gates = gates;
        s.cPrev = t > 0 ? math::readOnly(stepRows(m_cells, m_units, begin, t - 1)) : zeroRows();
        s.actC = math::readOnly(stepRows(m_cellActs, m_units, begin, t));
        s.dhOut = outputGradRows(dy, begin, t);
        s.dhRec = math::readOnly(gradH);
        s.dc = gradC;
        recurrent::lstmBackward(d, m_activation, m_recurrentActivation, s);
        if (t > 0) // dL/dh_{t-1} = dL/dgates_t · R^T
            recurrent::gemm(d, false, false, rows, m_units, g, gates.data, gates.stride, recurrentT, m_units, 0.0f,
                            gradH.data, gradH.stride);
    }
    if (needInputGrad)
        inputGradient(begin, end);
}

} // namespace strata::nn
