#pragma once
// GEMM and BLAS thread control, through OpenBLAS (chosen over oneDNN by measurement:
// docs/ARCHITECTURE.md, "Why OpenBLAS"). No hand-written GEMM in hot paths.

#include <cstdint>

namespace strata::blas {

enum class Trans { No, Yes };

// C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C, row-major, with leading
// dimensions equal to the row lengths as stored.
void gemm(Trans transA, Trans transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          const float* b, float beta, float* c);

// Threads OpenBLAS may use in the calling process (0: one per core).
void setThreads(int threads);
int threads();
// Logical cores this process may run on.
int availableCores();
// The BLAS library and its CPU kernel, for the `hello` event ("OpenBLAS 0.3.21 Haswell").
const char* description();

} // namespace strata::blas
