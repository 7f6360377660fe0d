#pragma once
// Turns CUDA, cuBLAS, cuDNN and NCCL status codes into GpuError naming the device and the
// call ("gpu:1: cudaMalloc(&p, size): out of memory").

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <nccl.h>

namespace strata::cuda {

[[noreturn]] void throwGpuError(int device, const char* call, const char* what);

inline void check(cudaError_t status, int device, const char* call)
{
    if (status != cudaSuccess)
        throwGpuError(device, call, cudaGetErrorString(status));
}
inline void check(cublasStatus_t status, int device, const char* call)
{
    if (status != CUBLAS_STATUS_SUCCESS)
        throwGpuError(device, call, cublasGetStatusString(status));
}
inline void check(cudnnStatus_t status, int device, const char* call)
{
    if (status != CUDNN_STATUS_SUCCESS)
        throwGpuError(device, call, cudnnGetErrorString(status));
}
inline void check(ncclResult_t status, int device, const char* call)
{
    if (status != ncclSuccess)
        throwGpuError(device, call, ncclGetErrorString(status));
}

} // namespace strata::cuda

#define STRATA_GPU_CHECK(device, call) ::strata::cuda::check((call), (device), #call)
// After a kernel launch: a bad configuration or an earlier asynchronous fault.
#define STRATA_GPU_LAUNCHED(device, kernel) ::strata::cuda::check(cudaGetLastError(), (device), (kernel))
