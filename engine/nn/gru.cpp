#include "strata/nn/gru.h"

#include "recurrent_ops.h"

#include <algorithm>

namespace strata::nn {

GRU::GRU(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng)
    : RecurrentLayer(spec, inputShape, 3), m_resetAfter(spec.flag("reset_after"))
{
    createParameters(rng);
}

const Tensor& GRU::forward(const Tensor& x, const ForwardContext&)
{
    beginForward(x);
    const Device d = x.device();
    if (m_resetAfter) {
        m_rec.ensureShape(m_gates.shape(), d);
        forBlocks([this](int64_t begin, int64_t end) { forwardAfter(begin, end); });
    } else {
        m_resetH.ensureShape(m_states.shape(), d);
        forBlocks([this](int64_t begin, int64_t end) { forwardBefore(begin, end); });
    }
    return m_output;
}

Tensor GRU::backward(Tensor& dy, bool needInputGrad)
{
    beginBackward(needInputGrad);
    const Device d = device();
    const int64_t rows = batch() * m_steps;
    const int64_t g = m_gateWidth;
    m_gradH.ensureShape({batch(), m_units}, d);
    Parameter& recurrentKernel = m_params[1];
    if (m_resetAfter) {
        m_recGrad.ensureShape(m_gates.shape(), d);
        forBlocks([&](int64_t begin, int64_t end) {
            backwardAfter(dy, begin, end);
            if (needInputGrad)
                inputGradient(begin, end);
        });
        // dR = states^T · dL/d(h·R + b_r); the bias rows: input, recurrent.
        forColumnBlocks([&](int64_t begin, int64_t end) {
            kernelGradient(begin, end);
            columnsGradient(m_states.data(), m_units, m_recGrad.data(), recurrentKernel.grad.data(), begin, end);
        });
        if (m_useBias) {
            recurrent::columnSums(d, m_gates.data(), rows, g, m_params[2].grad.data());
            recurrent::columnSums(d, m_recGrad.data(), rows, g, m_params[2].grad.data() + g);
        }
    } else {
        m_gradResetH.ensureShape({batch(), m_units}, d);
        forBlocks([&](int64_t begin, int64_t end) {
            backwardBefore(dy, begin, end);
            if (needInputGrad)
                inputGradient(begin, end);
        });
        // dR's z and r columns from the previous states, its h columns from r * h_{t-1}.
        const int64_t zr = 2 * m_units;
        forColumnBlocks([&](int64_t begin, int64_t end) {
            kernelGradient(begin, end);
            if (begin < zr)
                columnsGradient(m_states.data(), m_units, m_gates.data(), recurrentKernel.grad.data(), begin,
                                std::min(end, zr));
            if (end > zr)
                columnsGradient(m_resetH.data(), m_units, m_gates.data(), recurrentKernel.grad.data(),
                                std::max(begin, zr), end);
        });
        if (m_useBias)
            recurrent::columnSums(d, m_gates.data(), rows, g, m_params[2].grad.data());
    }
    if (!needInputGrad)
        return {};
    return m_gradInput;
}

// --- reset_after: the recurrent projection h·R + b_r whole, r applied to its h part ----------

void GRU::forwardAfter(int64_t begin, int64_t end)
{
    const Device d = device();
    const int64_t rows = end - begin;
    const int64_t g = m_gateWidth;
    const float* recurrentKernel = m_params[1].value.data();
    projectInputs(begin, end);
    for (int64_t t = 0; t < m_steps; ++t) {
        const math::Rows rec = stepRows(m_rec, g, begin, t);
        if (t > 0) {
            const math::Rows h = stepRows(m_states, m_units, begin, t);
            recurrent::gemm(d, false, false, rows, g, m_units, h.data, h.stride, recurrentKernel, g, 0.0f, rec.data,
                            rec.stride);
        } else {
            recurrent::fillRows(d, rec, rows, g, 0.0f); // h_{-1}·R = 0
        }
        math::GruForwardStep s;
        s.rows = rows;
        s.units = m_units;
        s.gates = stepRows(m_gates, g, begin, t);
        s.inputBias = biasRow(0);
        s.rec = rec;
        s.recBias = biasRow(1);
        s.hPrev = math::readOnly(stepRows(m_states, m_units, begin, t));
        s.h = outputRows(begin, t);
        s.hCopy = outputCopyRows(begin, t);
        recurrent::gruForward(d, m_activation, m_recurrentActivation, s);
    }
}

void GRU::backwardAfter(const Tensor& dy, int64_t begin, int64_t end)
{
    const Device d = device();
    const int64_t rows = end - begin;
    const int64_t g = m_gateWidth;
    const float* recurrentT = m_recurrentT.data();
    const math::Rows gradH = blockRows(m_gradH, begin);
    recurrent::fillRows(d, gradH, rows, m_units, 0.0f);
    for (int64_t t = m_steps - 1; t >= 0; --t) {
        const math::Rows recGrad = stepRows(m_recGrad, g, begin, t);
        math::GruBackwardStep s;
        s.rows = rows;
        s.units = m_units;
        s.gates = stepRows(m_gates, g, begin, t);
        s.recGrad = recGrad;
        s.rec = math::readOnly(stepRows(m_rec, g, begin, t));
        s.hPrev = math::readOnly(stepRows(m_states, m_units, begin, t));
        s.dhOut = outputGradRows(dy, begin, t);
        s.dh = gradH;
        recurrent::gruBackward(d, m_activation, m_recurrentActivation, s);
        if (t > 0) // dL/dh_{t-1} = dh_t * z + dL/d(h·R)_t · R^T
            recurrent::gemm(d, false, false, rows, m_units, g, recGrad.data, recGrad.stride, recurrentT, m_units, 1.0f,
                            gradH.data, gradH.stride);
    }
}

// --- reset before the product: (r * h_{t-1})·R_h, two GEMMs per step -------------------------

void GRU::forwardBefore(int64_t begin, int64_t end)
{
    const Device d = device();
    const int64_t rows = end - begin;
    const int64_t g = m_gateWidth;
    const int64_t u = m_units;
    const float* recurrentKernel = m_params[1].value.data();
    projectInputs(begin, end);
    for (int64_t t = 0; t < m_steps; ++t) {
        const math::Rows gates = stepRows(m_gates, g, begin, t);
        const math::Rows hPrev = stepRows(m_states, u, begin, t);
        const math::Rows resetH = stepRows(m_resetH, u, begin, t);
        if (t > 0) // z, r columns += h_{t-1}·R_zr
            recurrent::gemm(d, false, false, rows, 2 * u, u, hPrev.data, hPrev.stride, recurrentKernel, g, 1.0f,
                            gates.data, gates.stride);
        math::GruResetStep reset;
        reset.rows = rows;
        reset.units = u;
        reset.gates = gates;
        reset.bias = biasRow(0);
        reset.hPrev = math::readOnly(hPrev);
        reset.resetH = resetH;
        recurrent::gruReset(d, m_recurrentActivation, reset);
        if (t > 0) // h columns += (r * h_{t-1})·R_h (zero at step 0)
            recurrent::gemm(d, false, false, rows, u, u, resetH.data, resetH.stride, recurrentKernel + 2 * u, g, 1.0f,
                            gates.data + 2 * u, gates.stride);
        math::GruCandidateStep s;
        s.rows = rows;
        s.units = u;
        s.gates = gates;
        s.bias = biasRow(0);
        s.hPrev = math::readOnly(hPrev);
        s.h = outputRows(begin, t);
        s.hCopy = outputCopyRows(begin, t);
        recurrent::gruCandidate(d, m_activation, s);
    }
}

void GRU::backwardBefore(const Tensor& dy, int64_t begin, int64_t end)
{
    const Device d = device();
    const int64_t rows = end - begin;
    const int64_t g = m_gateWidth;
    const int64_t u = m_units;
    const float* recurrentT = m_recurrentT.data(); // rows: z, r, h blocks of units each
    const math::Rows gradH = blockRows(m_gradH, begin);
    const math::Rows gradResetH = blockRows(m_gradResetH, begin);
    recurrent::fillRows(d, gradH, rows, u, 0.0f);
    for (int64_t t = m_steps - 1; t >= 0; --t) {
        const math::Rows gates = stepRows(m_gates, g, begin, t);
        const math::ConstRows hPrev = math::readOnly(stepRows(m_states, u, begin, t));
        math::GruCandidateBackStep s;
        s.rows = rows;
        s.units = u;
        s.gates = gates;
        s.hPrev = hPrev;
        s.dhOut = outputGradRows(dy, begin, t);
        s.dh = gradH;
        recurrent::gruCandidateBack(d, m_activation, m_recurrentActivation, s);
        // dL/d(r * h_{t-1}) = dL/dh~_pre · R_h^T; zero at step 0, where h_{-1} = 0 makes r's
        // gradient 0 and nothing flows further back.
        if (t > 0)
            recurrent::gemm(d, false, false, rows, u, u, gates.data + 2 * u, gates.stride, recurrentT + 2 * u * u, u,
                            0.0f, gradResetH.data, gradResetH.stride);
        math::GruResetBackStep reset;
        reset.rows = rows;
        reset.units = u;
        reset.gates = gates;
        reset.dResetH = t > 0 ? math::readOnly(gradResetH) : zeroRows();
        reset.hPrev = hPrev;
        reset.dh = gradH;
        recurrent::gruResetBack(d, m_recurrentActivation, reset);
        if (t > 0) // dL/dh_{t-1} += dL/d(z, r pre-activations) · R_zr^T
            recurrent::gemm(d, false, false, rows, u, 2 * u, gates.data, gates.stride, recurrentT, u, 1.0f,
                            gradH.data, gradH.stride);
    }
}

} // namespace strata::nn
