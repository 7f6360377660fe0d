#pragma once
// What LSTM and GRU share: Keras' RNN over (batch, steps, features) sequences from a zero
// initial state, returning the last output (batch, units) or, with return_sequences, every
// step's (batch, steps, units). Parameters as Keras: kernel (features, g * units),
// recurrent_kernel (units, g * units), bias; g gates in Keras' order.
//
// The algorithm, one for both devices (nn/recurrent_ops.h has the primitives):
//  - forward: the input projection of all steps as one GEMM (x · kernel over batch * steps
//    rows); then per step one GEMM of the previous output with the recurrent kernel,
//    accumulated into that step's gate rows, and one fused pass computing the gates, the
//    state and the output;
//  - backward through time: per step the fused gradient pass and one GEMM carrying dL/dh to
//    the step before; then the kernel and recurrent kernel gradients each as one GEMM over
//    all steps, the bias gradient as column sums, the input gradient as one GEMM.
// Buffers are batch-major (batch, steps, width): a step's rows are every steps-th row (the
// GEMMs take row strides) and a block of examples is contiguous. On the CPU the batch is
// split among the compute threads, each running the whole time loop for its examples (the
// recurrence couples steps, never examples), so the small per-step GEMMs need no
// synchronization between threads. On a GPU the whole batch is one block.
//
// Why not cuDNN's RNN API on GPUs: the v8 API could not be run here (no GPU), while cuBLAS's
// GEMMs and the gate kernels (cuda/recurrent_kernels.cu) do the CPU path's arithmetic
// exactly (nn/math/recurrent_math.h), which the CPU tests check against double-precision
// references and tst_gpu_ops compares on a GPU.
//
// The previous outputs are kept shifted by one step (`m_states`: h_{t-1} at step t, zeros at
// step 0), so that the recurrent kernel's gradient is one GEMM, states^T · dL/dgates.

#include "strata/nn/layer.h"

#include <functional>

namespace strata::nn {

namespace math { // nn/math/recurrent_math.h: a step's rows of a buffer
template <typename T>
struct StepRows;
using Rows = StepRows<float>;
using ConstRows = StepRows<const float>;
} // namespace math

class RecurrentLayer : public Layer {
protected:
    // `gates`: how many blocks of `units` the kernels have (LSTM 4, GRU 3).
    RecurrentLayer(const schema::LayerSpec& spec, const Shape& inputShape, int64_t gates);

    // Checks and keeps x, sizes the shared buffers on x's device and zeros step 0's states.
    void beginForward(const Tensor& x);
    // Sizes the input gradient when needed; transposes the recurrent kernel into
    // m_recurrentT (the per-step GEMMs carrying dL/dh back read it untransposed: oneDNN runs
    // them about 1.5x faster than with a transposed operand).
    void beginBackward(bool needInputGrad);
    // f(begin, end) for blocks of examples: the compute threads' shares on the CPU, the whole
    // batch on a GPU.
    void forBlocks(const std::function<void(int64_t, int64_t)>& f) const;
    // The gate rows of examples [begin, end) = their inputs · kernel, all steps (no bias).
    void projectInputs(int64_t begin, int64_t end);
    // dL/dx of examples [begin, end) = dL/dgates · kernel^T, from the gradients in m_gates.
    void inputGradient(int64_t begin, int64_t end);
    // f(begin, end) for blocks of the gate columns [0, g units): the compute threads' shares
    // on the CPU, all of them on a GPU. The kernels' gradients are GEMMs over all steps whose
    // output columns are independent: split by columns, no thread waits on another.
    void forColumnBlocks(const std::function<void(int64_t, int64_t)>& f) const;
    // Columns [begin, end) of kernel's gradient = x^T · dL/dgates over all steps (m_gates).
    void kernelGradient(int64_t begin, int64_t end);
    // Columns [begin, end) of a (rows, g units) gradient = a^T · b over all steps, `a`
    // (batch * steps, width), `b` (batch * steps, g units) from column `begin` on.
    void columnsGradient(const float* a, int64_t width, const float* b, float* grad, int64_t begin,
                         int64_t end) const;

    Device device() const { return m_input.device(); }
    int64_t batch() const { return m_input.dim(0); }
    // Step t's rows of a (batch, steps, width) buffer, from example `begin`.
    static math::Rows stepRows(Tensor& t, int64_t width, int64_t begin, int64_t step);
    // Where step t writes its output h (and a second copy, or the scratch rows).
    math::Rows outputRows(int64_t begin, int64_t step);
    math::Rows outputCopyRows(int64_t begin, int64_t step);
    // dL/dh_t from the layer's output (a zero row when the output is the last step's only).
    math::ConstRows outputGradRows(const Tensor& dy, int64_t begin, int64_t step) const;
    // Rows of `width` zeros (width <= g * units), and the bias's row `index` (zeros without bias).
    math::ConstRows zeroRows() const;
    const float* biasRow(int64_t index) const;
    // Rows [begin, ...) of a (batch, units) buffer.
    math::Rows blockRows(Tensor& t, int64_t begin) const;

    int64_t m_units;
    int64_t m_steps;
    int64_t m_features;
    int64_t m_gateWidth; // g * units
    bool m_returnSequences;
    bool m_useBias;
    Activation m_activation;
    Activation m_recurrentActivation;

    Tensor m_input;
    Tensor m_gates;   // (batch, steps, g*units): pre-activations, activations, then gradients
    Tensor m_states;  // (batch, steps, units): h_{t-1} at step t
    Tensor m_output;
    Tensor m_discard; // (batch, units): the scratch target of a copy no one reads
    Tensor m_zeros;   // (g*units) zeros
    Tensor m_recurrentT; // (g*units, units): recurrent_kernel^T, for the backward
    Tensor m_gradInput;
};

} // namespace strata::nn
