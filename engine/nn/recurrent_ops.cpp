#include "recurrent_ops.h"

#include "cuda/ops.h"
#include "strata/tensor/blas.h"

#include <algorithm>
#include <vector>

namespace strata::nn::recurrent {

void gemm(Device d, bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc)
{
    if (m == 0 || n == 0)
        return;
    if (!d.isCpu())
        return cuda::ops().gemmStrided(d.index, transA, transB, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
    blas::gemm(transA ? blas::Trans::Yes : blas::Trans::No, transB ? blas::Trans::Yes : blas::Trans::No, m, n, k,
               1.0f, a, lda, b, ldb, beta, c, ldc);
}

void fillRows(Device d, math::Rows rows, int64_t count, int64_t cols, float value)
{
    if (!d.isCpu())
        return cuda::ops().fillRows(d.index, rows.data, count, cols, rows.stride, value);
    for (int64_t r = 0; r < count; ++r)
        std::fill(rows.row(r), rows.row(r) + cols, value);
}

void columnSums(Device d, const float* in, int64_t rows, int64_t cols, float* out)
{
    if (!d.isCpu())
        return cuda::ops().columnSums(d.index, in, rows, cols, out);
    // A GEMM with a row of ones: vectorized and threaded like the rest (as nn/affine.cpp).
    thread_local std::vector<float> ones;
    if (ones.size() < static_cast<size_t>(rows))
        ones.assign(static_cast<size_t>(rows), 1.0f);
    blas::gemm(blas::Trans::No, blas::Trans::No, 1, cols, rows, 1.0f, ones.data(), in, 0.0f, out);
}

void transpose(Device d, const float* in, int64_t rows, int64_t cols, float* out)
{
    if (!d.isCpu())
        return cuda::ops().transpose(d.index, in, rows, cols, out);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
            out[c * rows + r] = in[r * cols + c];
}

// The gate passes: a kernel on a GPU, the vectorized loop on the CPU.
#define STRATA_RECURRENT_DISPATCH(name, ...)                                                                          \
    do {                                                                                                              \
        if (!d.isCpu())                                                                                               \
            return cuda::ops().name##Step(d.index, __VA_ARGS__);                                                      \
        cpu::name(__VA_ARGS__);                                                                                       \
    } while (false)

void lstmForward(Device d, Activation act, Activation rec, const math::LstmForwardStep& s)
{
    STRATA_RECURRENT_DISPATCH(lstmForward, act, rec, s);
}
void lstmBackward(Device d, Activation act, Activation rec, const math::LstmBackwardStep& s)
{
    STRATA_RECURRENT_DISPATCH(lstmBackward, act, rec, s);
}
void gruForward(Device d, Activation act, Activation rec, const math::GruForwardStep& s)
{
    STRATA_RECURRENT_DISPATCH(gruForward, act, rec, s);
}
void gruBackward(Device d, Activation act, Activation rec, const math::GruBackwardStep& s)
{
    STRATA_RECURRENT_DISPATCH(gruBackward, act, rec, s);
}
void gruReset(Device d, Activation rec, const math::GruResetStep& s) { STRATA_RECURRENT_DISPATCH(gruReset, rec, s); }
void gruCandidate(Device d, Activation act, const math::GruCandidateStep& s)
{
    STRATA_RECURRENT_DISPATCH(gruCandidate, act, s);
}
void gruCandidateBack(Device d, Activation act, Activation rec, const math::GruCandidateBackStep& s)
{
    STRATA_RECURRENT_DISPATCH(gruCandidateBack, act, rec, s);
}
void gruResetBack(Device d, Activation rec, const math::GruResetBackStep& s)
{
    STRATA_RECURRENT_DISPATCH(gruResetBack, rec, s);
}

#undef STRATA_RECURRENT_DISPATCH

} // namespace strata::nn::recurrent
