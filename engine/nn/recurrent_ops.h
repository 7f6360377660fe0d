#pragma once
// The primitives the recurrent layers' time loops (nn/lstm.cpp, nn/gru.cpp) run, on the
// device whose memory the pointers are: GEMMs on strided operands, one step's gate pass,
// row fills and column sums. On the CPU: oneDNN's sgemm and vectorized loops
// (nn/recurrent_gates.cpp); on a GPU: cuBLAS and the kernels of cuda/recurrent_kernels.cu.
// Both run nn/math/recurrent_math.h's arithmetic, so the loops above them are one algorithm
// for both devices.

#include "nn/math/recurrent_math.h"
#include "strata/core/device.h"
#include "strata/nn/activation_kind.h"

#include <cstdint>

namespace strata::nn::recurrent {

// C (m x n, row stride ldc) = op(A) · op(B) + beta * C, row-major with the given row strides.
void gemm(Device d, bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
// `rows` rows of `cols` values (row r at rows.row(r)) set to `value`.
void fillRows(Device d, math::Rows rows, int64_t count, int64_t cols, float value);
// out (cols) = the sums over `rows` rows of `in` (rows x cols, contiguous).
void columnSums(Device d, const float* in, int64_t rows, int64_t cols, float* out);
// out (cols x rows) = in (rows x cols) transposed.
void transpose(Device d, const float* in, int64_t rows, int64_t cols, float* out);

void lstmForward(Device d, Activation act, Activation rec, const math::LstmForwardStep& s);
void lstmBackward(Device d, Activation act, Activation rec, const math::LstmBackwardStep& s);
void gruForward(Device d, Activation act, Activation rec, const math::GruForwardStep& s);
void gruBackward(Device d, Activation act, Activation rec, const math::GruBackwardStep& s);
void gruReset(Device d, Activation rec, const math::GruResetStep& s);
void gruCandidate(Device d, Activation act, const math::GruCandidateStep& s);
void gruCandidateBack(Device d, Activation act, Activation rec, const math::GruCandidateBackStep& s);
void gruResetBack(Device d, Activation rec, const math::GruResetBackStep& s);

// The CPU loops (nn/recurrent_gates.cpp), one thread's rows.
namespace cpu {
void lstmForward(Activation act, Activation rec, const math::LstmForwardStep& s);
void lstmBackward(Activation act, Activation rec, const math::LstmBackwardStep& s);
void gruForward(Activation act, Activation rec, const math::GruForwardStep& s);
void gruBackward(Activation act, Activation rec, const math::GruBackwardStep& s);
void gruReset(Activation rec, const math::GruResetStep& s);
void gruCandidate(Activation act, const math::GruCandidateStep& s);
void gruCandidateBack(Activation act, Activation rec, const math::GruCandidateBackStep& s);
void gruResetBack(Activation rec, const math::GruResetBackStep& s);
} // namespace cpu

} // namespace strata::nn::recurrent
