#pragma once
// Launching the backend's simple kernels: f(i) for every i in [0, n), as a grid-stride loop
// on the calling thread's stream for `device`. The per-element arithmetic lives in
// nn/math (shared with the CPU); these kernels only map it over memory.

#include "cuda_check.h"
#include "cuda_ops.h"
#include "device_context.h"

#include <algorithm>
#include <cstdint>

namespace strata::cuda {

template <typename F>
__global__ void forEachKernel(int64_t n, F f)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
        f(i);
}

template <typename F>
void forEach(int device, int64_t n, F f, const char* name)
{
    if (n <= 0)
        return;
    constexpr int kThreads = 256;
    // Enough blocks to fill any current GPU; the loop strides over the rest.
    const auto blocks = static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, 4096));
    cudaStream_t s = stream(device);
    forEachKernel<<<blocks, kThreads, 0, s>>>(n, f);
    STRATA_GPU_LAUNCHED(device, name);
}

} // namespace strata::cuda

namespace strata::cuda {

// Device memory for one operation's intermediate values, back to the cache at scope end
// (safe while kernels still use it: the cache hands it out again only on this stream).
template <typename T>
class Scratch {
public:
    Scratch(int device, int64_t n)
        : m_device(device), m_p(static_cast<T*>(backend().allocate(device, static_cast<size_t>(n) * sizeof(T))))
    {
    }
    ~Scratch() { backend().deallocate(m_device, m_p); }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    T* get() const { return m_p; }

private:
    int m_device;
    T* m_p;
};

// Device values to the host, waiting for them.
template <typename T>
void download(int device, T* dst, const T* src, int64_t n)
{
    STRATA_GPU_CHECK(device, cudaMemcpyAsync(dst, src, static_cast<size_t>(n) * sizeof(T), cudaMemcpyDeviceToHost,
                                             stream(device)));
    STRATA_GPU_CHECK(device, cudaStreamSynchronize(stream(device)));
}

} // namespace strata::cuda
