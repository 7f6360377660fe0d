// Kernels of the normalization layers: per-channel sums over rows (in double, for batch
// statistics), and a per-channel affine map. cuDNN's batch normalization is not used: its
// running variance is Bessel-corrected (Keras 3's is not), and synchronized batch
// normalization needs the sums themselves to add them across replicas.

#include "launch.cuh"
#include "cuda_ops.h"

#include <vector>

namespace strata::cuda {

namespace {

constexpr int kChannelsPerBlock = 32;
constexpr int kRowThreads = 8;

// Block (32 channels x 8 row threads); grid.y row groups. Sums a and a*b (a*a without b) of
// each channel over the block's rows, then adds them into out[c] and out[channels + c].
__global__ void channelSumsKernel(const float* a, const float* b, int64_t rows, int64_t channels, double* out)
{
    __shared__ double partial[2][kRowThreads][kChannelsPerBlock];
    const int64_t c = blockIdx.x * static_cast<int64_t>(kChannelsPerBlock) + threadIdx.x;
    double s = 0, sb = 0;
    if (c < channels) {
        for (int64_t r = blockIdx.y * static_cast<int64_t>(kRowThreads) + threadIdx.y; r < rows;
             r += static_cast<int64_t>(gridDim.y) * kRowThreads) {
            const float v = a[r * channels + c];
            s += v;
            sb += static_cast<double>(v) * (b ? b[r * channels + c] : v);
        }
    }
    partial[0][threadIdx.y][threadIdx.x] = s;
    partial[1][threadIdx.y][threadIdx.x] = sb;
    __syncthreads();
    if (threadIdx.y == 0 && c < channels) {
        for (int y = 1; y < kRowThreads; ++y) {
            s += partial[0][y][threadIdx.x];
            sb += partial[1][y][threadIdx.x];
        }
        atomicAdd(out + c, s);
        atomicAdd(out + channels + c, sb);
    }
}

} // namespace

void CudaOps::channelSums(int device, const float* a, const float* b, int64_t rows, int64_t channels, double* out)
{
    Scratch<double> sums(device, 2 * channels);
    cudaStream_t s = stream(device);
    STRATA_GPU_CHECK(device, cudaMemsetAsync(sums.get(), 0, static_cast<size_t>(2 * channels) * sizeof(double), s));
    if (rows > 0) {
        const auto channelBlocks = static_cast<unsigned>((channels + kChannelsPerBlock - 1) / kChannelsPerBlock);
        // Enough row groups to fill the GPU; each thread then strides over the rest.
        const auto rowGroups = static_cast<unsigned>(
            std::min<int64_t>((rows + kRowThreads - 1) / kRowThreads, std::max<int64_t>(1, 1024 / channelBlocks)));
        channelSumsKernel<<<dim3(channelBlocks, rowGroups), dim3(kChannelsPerBlock, kRowThreads), 0, s>>>(
            a, b, rows, channels, sums.get());
        STRATA_GPU_LAUNCHED(device, "channelSums");
    }
    download(device, out, sums.get(), 2 * channels);
}

void CudaOps::channelAffine(int device, const float* u, const float* v, int64_t rows, int64_t channels, const float* coef,
                   float* out)
{
    forEach(device, rows * channels, [=] __device__(int64_t i) {
        const int64_t c = i % channels;
        out[i] = coef[c] * u[i] + (v ? coef[channels + c] * v[i] : 0.0f) + coef[2 * channels + c];
    }, "channelAffine");
}

} // namespace strata::cuda
