#include "launch.cuh"
#include "cuda_ops.h"

#include <vector>

namespace strata::cuda {

void CudaOps::fill(int device, float* p, int64_t n, float value)
{
    forEach(device, n, [=] __device__(int64_t i) { p[i] = value; }, "fill");
}

void CudaOps::multiply(int device, const float* a, const float* b, float* out, int64_t n)
{
    forEach(device, n, [=] __device__(int64_t i) { out[i] = a[i] * b[i]; }, "multiply");
}

void CudaOps::add(int device, const float* a, float* out, int64_t n)
{
    forEach(device, n, [=] __device__(int64_t i) { out[i] += a[i]; }, "add");
}

namespace {
struct Summands {
    const float* p[kMaxSummands];
};
} // namespace

void CudaOps::sumBuffers(int device, const float* const* buffers, int count, float* out, int64_t n)
{
    Summands s{};
    for (int r = 0; r < count; ++r)
        s.p[r] = buffers[r];
    forEach(device, n, [=] __device__(int64_t i) {
        float sum = s.p[0][i];
        for (int r = 1; r < count; ++r)
            sum += s.p[r][i];
        out[i] = sum;
    }, "sumBuffers");
}

bool CudaOps::unscale(int device, float* g, int64_t n, float factor)
{
    Scratch<int> bad(device, 1);
    int* flag = bad.get();
    STRATA_GPU_CHECK(device, cudaMemsetAsync(flag, 0, sizeof(int), stream(device)));
    forEach(device, n, [=] __device__(int64_t i) {
        g[i] *= factor;
        if (!isfinite(g[i]))
            flag[0] = 1;
    }, "unscale");
    int failed = 0;
    download(device, &failed, flag, 1);
    return failed == 0;
}

void CudaOps::axpy(int device, float a, const float* x, float* y, int64_t n)
{
    forEach(device, n, [=] __device__(int64_t i) { y[i] += a * x[i]; }, "axpy");
}

namespace {
constexpr int kReduceThreads = 256;
constexpr int64_t kReduceBlocks = 1024;

// Each block's partial sum of squares; the host adds the partials (fixed order: deterministic).
__global__ void sumOfSquaresKernel(const float* p, int64_t n, double* partials)
{
    __shared__ double shared[kReduceThreads];
    double sum = 0;
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
        sum += static_cast<double>(p[i]) * p[i];
    shared[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (static_cast<int>(threadIdx.x) < half)
            shared[threadIdx.x] += shared[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partials[blockIdx.x] = shared[0];
}
} // namespace

double CudaOps::sumOfSquares(int device, const float* p, int64_t n)
{
    if (n <= 0)
        return 0;
    const int64_t blocks = std::min<int64_t>((n + kReduceThreads - 1) / kReduceThreads, kReduceBlocks);
    Scratch<double> partials(device, blocks);
    cudaStream_t s = stream(device);
    sumOfSquaresKernel<<<static_cast<unsigned>(blocks), kReduceThreads, 0, s>>>(p, n, partials.get());
    STRATA_GPU_LAUNCHED(device, "sumOfSquares");
    std::vector<double> host(static_cast<size_t>(blocks));
    download(device, host.data(), partials.get(), blocks);
    double sum = 0;
    for (double v : host)
        sum += v;
    return sum;
}

void CudaOps::broadcastRow(int device, const float* row, int64_t cols, float* out, int64_t rows)
{
    forEach(device, rows * cols, [=] __device__(int64_t i) { out[i] = row[i % cols]; }, "broadcastRow");
}

void CudaOps::transpose(int device, const float* in, int64_t rows, int64_t cols, float* out)
{
    forEach(device, rows * cols, [=] __device__(int64_t i) {
        const int64_t r = i / cols, c = i % cols;
        out[c * rows + r] = in[i];
    }, "transpose");
}

} // namespace strata::cuda
