// Row-major GEMMs through cuBLAS (column-major): C = A B is computed as C^T = B^T A^T, which
// is C in row-major without any transposition.

#include "cuda_check.h"
#include "device_context.h"
#include "cuda_ops.h"
#include "host.h"

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

void CudaOps::gemm(int device, bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          const float* b, float beta, float* c)
{
    gemmStrided(device, transA, transB, m, n, k, alpha, a, transA ? m : k, b, transB ? k : n, beta, c, n);
}

void CudaOps::gemmStrided(int device, bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                 int64_t lda64, const float* b, int64_t ldb64, float beta, float* c, int64_t ldc64)
{
    if (m == 0 || n == 0)
        return;
    const int lda = dim(lda64, device, "a row"), ldb = dim(ldb64, device, "a row"), ldc = dim(ldc64, device, "a row");
    // float32 data throughout; the compute type says what the tensor cores may do with it
    // (read per call: lanes outlive sessions, the precision is the current session's).
    const gpu::Precision p = host().precision();
    const cublasComputeType_t compute = p == gpu::Precision::MixedBfloat16 ? CUBLAS_COMPUTE_32F_FAST_16BF
                                        : p == gpu::Precision::Tf32        ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                           : CUBLAS_COMPUTE_32F;
    STRATA_GPU_CHECK(device, cublasGemmEx(lane(device).cublas, transB ? CUBLAS_OP_T : CUBLAS_OP_N,
                                          transA ? CUBLAS_OP_T : CUBLAS_OP_N, dim(n, device, "n"), dim(m, device, "m"),
                                          dim(k, device, "k"), &alpha, b, CUDA_R_32F, ldb, a, CUDA_R_32F, lda, &beta, c,
                                          CUDA_R_32F, ldc, compute, CUBLAS_GEMM_DEFAULT));
}

void CudaOps::columnSums(int device, const float* in, int64_t rows, int64_t cols, float* out)
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
