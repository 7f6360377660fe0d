#pragma once
// Per-thread CUDA state: the stream a thread computes on for each device (a replica thread
// thereby has its own), with the cuBLAS and cuDNN handles bound to it, and each device's
// caching allocator. Lanes (stream + handles) are created on first use and return to a
// per-device pool when their thread ends, so threads that come and go do not leak streams.

#include "strata/tensor/caching_allocator.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

namespace strata::cuda {

struct Lane {
    cudaStream_t stream = nullptr;
    cublasHandle_t cublas = nullptr;
    cudnnHandle_t cudnn = nullptr;
};

// Makes `device` this thread's current device and returns this thread's lane for it.
Lane& lane(int device);
inline cudaStream_t stream(int device) { return lane(device).stream; }

CachingAllocator& allocator(int device);

// Scratch device memory for cuDNN's workspaces, grown as needed, per lane.
void* workspace(int device, size_t bytes);

} // namespace strata::cuda
