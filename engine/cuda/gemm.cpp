// Row-major GEMMs through cuBLAS (column-major): C = A B is computed as C^T = B^T A^T, which
// is C in row-major without any transposition.

#include "cuda_check.h"
#include "device_context.h"
#include "ops.h"
#include "strata/tensor/gpu.h"

#include <cstdint>

namespace strata::cuda {

namespace {
int dim(int64_t v, int device, const char* what)
{
    if (v > INT32_MAX)
        throwGpuError(device, "cublasSgemm", (std::string(what) + " exceeds cuBLAS's 32-bit dimensions").c_str());
    return static_cast<int>(v);
}
} // namespace

void gemm(int device, bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          const float* b, float beta, float* c)
{
    if (m == 0 || n == 0)
        return;
    const int lda = dim(transA ? m : k, device, "a row"), ldb = dim(transB ? k : n, device, "a row");
    cublasHandle_t h = lane(device).cublas;
    // Per call: lanes outlive sessions, and the setting is the current session's.
    STRATA_GPU_CHECK(device, cublasSetMathMode(h, gpu::tf32() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
    STRATA_GPU_CHECK(device, cublasSgemm(h, transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                                         transA ? CUBLAS_OP_T : CUBLAS_OP_N, dim(n, device, "n"), dim(m, device, "m"),
                                         dim(k, device, "k"), &alpha, b, ldb, a, lda, &beta, c, dim(n, device, "n")));
}

void columnSums(int device, const float* in, int64_t rows, int64_t cols, float* out)
{
    // A row of ones per device, grown as needed (never shrunk).
    thread_local float* ones[64] = {};
    thread_local int64_t onesLength[64] = {};
    if (onesLength[device] < rows) {
        if (ones[device])
            deallocate(device, ones[device]);
        ones[device] = static_cast<float*>(allocate(device, static_cast<size_t>(rows) * sizeof(float)));
        fill(device, ones[device], rows, 1.0f);
        onesLength[device] = rows;
    }
    gemm(device, false, false, 1, cols, rows, 1.0f, ones[device], in, 0.0f, out);
}

} // namespace strata::cuda
