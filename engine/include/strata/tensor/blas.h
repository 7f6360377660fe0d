#pragma once
// GEMM and compute-thread control, through oneDNN's sgemm (chosen over OpenBLAS by
// measurement: docs/decisions.md, "Why oneDNN for GEMM"). No hand-written GEMM in hot paths.

#include <cstdint>

namespace strata::blas {

enum class Trans { No, Yes };

// C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C, row-major, with leading
// dimensions equal to the row lengths as stored.
void gemm(Trans transA, Trans transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          const float* b, float beta, float* c);
// The same on sub-matrices: lda, ldb and ldc are the distances between the starts of
// consecutive rows as stored (at least the row lengths). Used by the recurrent layers, whose
// per-step operands are every T-th row of a (batch, steps, width) buffer, or a column block.
void gemm(Trans transA, Trans transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// Threads GEMMs called from this thread may use (0: one per core). Per thread, so that
// replica threads can each run single-threaded GEMMs.
void setThreads(int threads);
int threads();
// Tells OpenMP, for this thread, the team size threads() asks for: what a oneDNN primitive
// (tensor/onednn.h) is created and run under, as it splits its work by the count it saw.
void useConfiguredThreads();
// Logical cores this process may run on.
int availableCores();
// The GEMM library and the instruction set it uses, for the `hello` event.
const char* description();

} // namespace strata::blas
