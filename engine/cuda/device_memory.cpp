// Device memory: allocation through each device's caching allocator and the copies between
// host and devices, on the calling thread's stream.

#include "cuda_check.h"
#include "device_context.h"
#include "cuda_ops.h"
#include "host.h"
#include "strata/core/error.h"

namespace strata::cuda {

namespace {
size_t bytesOf(int64_t n) { return static_cast<size_t>(n) * sizeof(float); }
} // namespace

void* CudaOps::allocate(int device, size_t bytes)
{
    CachingAllocator& a = allocator(device);
    void* p = a.allocate(bytes, stream(device));
    if (!p) {
        const auto s = a.stats();
        throw GpuError("gpu:" + std::to_string(device) + ": out of memory allocating " +
                       std::to_string(bytes >> 20) + " MiB (" + std::to_string(s.bytesInUse >> 20) +
                       " MiB in use by this process)");
    }
    return p;
}

void CudaOps::deallocate(int device, void* p) { allocator(device).deallocate(p); }

void CudaOps::copyToDevice(int device, float* dst, const float* src, int64_t n)
{
    STRATA_GPU_CHECK(device, cudaMemcpyAsync(dst, src, bytesOf(n), cudaMemcpyHostToDevice, stream(device)));
}

void CudaOps::copyToHost(int device, float* dst, const float* src, int64_t n)
{
    const cudaStream_t s = stream(device);
    STRATA_GPU_CHECK(device, cudaMemcpyAsync(dst, src, bytesOf(n), cudaMemcpyDeviceToHost, s));
    STRATA_GPU_CHECK(device, cudaStreamSynchronize(s));
}

void CudaOps::copyOnDevice(int device, float* dst, const float* src, int64_t n)
{
    STRATA_GPU_CHECK(device, cudaMemcpyAsync(dst, src, bytesOf(n), cudaMemcpyDeviceToDevice, stream(device)));
}

void CudaOps::copyBetweenDevices(int dstDevice, float* dst, int srcDevice, const float* src, int64_t n)
{
    // Ordered after the source's pending work (its stream is synchronized) and on the
    // destination's stream, which later reads it.
    STRATA_GPU_CHECK(srcDevice, cudaStreamSynchronize(stream(srcDevice)));
    STRATA_GPU_CHECK(dstDevice, cudaMemcpyPeerAsync(dst, host().physicalIndex(dstDevice), src,
                                                    host().physicalIndex(srcDevice), bytesOf(n), stream(dstDevice)));
}

void CudaOps::synchronize(int device) { STRATA_GPU_CHECK(device, cudaStreamSynchronize(stream(device))); }

} // namespace strata::cuda
