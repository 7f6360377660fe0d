#include "affine.h"

#include "cuda/ops.h"
#include "strata/tensor/blas.h"
#include "tensor/parallel.h"

#include <algorithm>
#include <vector>

namespace strata::nn::affine {

namespace {

// The GEMMs and row operations on the kernel's device (oneDNN on the CPU, cuBLAS on a GPU).
void gemmOn(Device d, bool transA, bool transB, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
            float beta, float* c)
{
    if (!d.isCpu())
        return cuda::ops().gemm(d.index, transA, transB, m, n, k, 1.0f, a, b, beta, c);
    blas::gemm(transA ? blas::Trans::Yes : blas::Trans::No, transB ? blas::Trans::Yes : blas::Trans::No, m, n, k, 1.0f,
               a, b, beta, c);
}

void broadcastRowOn(Device d, const float* row, int64_t units, float* out, int64_t rows)
{
    if (!d.isCpu())
        return cuda::ops().broadcastRow(d.index, row, units, out, rows);
    parallel::forRanges(rows, units, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r)
            std::copy(row, row + units, out + r * units);
    });
}

void columnSumsOn(Device d, const float* in, int64_t rows, int64_t units, float* out)
{
    if (!d.isCpu())
        return cuda::ops().columnSums(d.index, in, rows, units, out);
    // Column sums as a GEMM with a row of ones: vectorized and threaded like the rest.
    thread_local std::vector<float> ones;
    if (ones.size() < static_cast<size_t>(rows))
        ones.assign(static_cast<size_t>(rows), 1.0f);
    blas::gemm(blas::Trans::No, blas::Trans::No, 1, units, rows, 1.0f, ones.data(), in, 0.0f, out);
}

// Threads that split a Dense product by the kernel's rows, each computing with the rows it
// owns (parallel.h, kMinOwnedParameters): when the kernel is worth owning and the output
// (the partial sums the threads add) is smaller than it. 1: the GEMM's own threading.
int ownerThreadsFor(Device d, int64_t rows, int64_t width, int64_t units)
{
    if (!d.isCpu() || rows > width)
        return 1;
    return parallel::ownerThreads(width * units);
}

// out = in . kernel over the threads' own rows of the kernel (a split of the sum), then
// + bias and the activation, split by rows of out.
void ownedForward(const float* in, int64_t rows, int64_t width, const float* kernel, int64_t units,
                  const float* bias, Activation activation, float* out, int threads)
{
    // The caller's buffer (a thread_local named inside the region would be each thread's own).
    thread_local std::vector<float> buffer;
    buffer.resize(static_cast<size_t>((threads - 1) * rows * units));
    float* const partials = buffer.data();
#pragma omp parallel num_threads(threads)
    {
        const int64_t t = omp_get_thread_num(), count = omp_get_num_threads();
        const auto [k0, k1] = parallel::share(width, t, count);
        float* part = t == 0 ? out : partials + (t - 1) * rows * units;
        blas::gemm(blas::Trans::No, blas::Trans::No, rows, units, k1 - k0, 1.0f, in + k0, width, kernel + k0 * units,
                   units, 0.0f, part, units);
#pragma omp barrier
        const auto [r0, r1] = parallel::share(rows, t, count);
        for (int64_t r = r0; r < r1; ++r) {
            float* o = out + r * units;
            for (int64_t j = 1; j < count; ++j) {
                const float* p = partials + ((j - 1) * rows + r) * units;
                for (int64_t u = 0; u < units; ++u)
                    o[u] += p[u];
            }
            if (bias)
                for (int64_t u = 0; u < units; ++u)
                    o[u] += bias[u];
        }
        if (r0 < r1)
            activationForward(activation, out + r0 * units, r1 - r0, units);
    }
}

// The kernel's gradient and the input's, each thread for the kernel rows it owns.
void ownedBackward(const float* in, int64_t rows, int64_t width, const float* kernel, int64_t units,
                   const float* gradOut, float* gradKernel, float* gradIn, int threads)
{
#pragma omp parallel num_threads(threads)
    {
        const auto [k0, k1] = parallel::share(width, omp_get_thread_num(), omp_get_num_threads());
        blas::gemm(blas::Trans::Yes, blas::Trans::No, k1 - k0, units, rows, 1.0f, in + k0, width, gradOut, units,
                   0.0f, gradKernel + k0 * units, units);
        if (gradIn)
            blas::gemm(blas::Trans::No, blas::Trans::Yes, rows, k1 - k0, units, 1.0f, gradOut, units,
                       kernel + k0 * units, units, 0.0f, gradIn + k0, width);
    }
}

} // namespace

void forward(const float* in, int64_t rows, int64_t width, const Parameter& kernel, const Parameter* bias,
             Activation activation, float* out)
{
    const Device d = kernel.value.device();
    const int64_t units = kernel.value.shape().back();
    if (const int threads = ownerThreadsFor(d, rows, width, units); threads > 1)
        return ownedForward(in, rows, width, kernel.value.data(), units, bias ? bias->value.data() : nullptr,
                            activation, out, threads);
    if (bias)
        broadcastRowOn(d, bias->value.data(), units, out, rows);
    gemmOn(d, false, false, rows, units, width, in, kernel.value.data(), bias ? 1.0f : 0.0f, out);
    activationForward(activation, out, rows, units, d);
}

void backward(const float* in, int64_t rows, int64_t width, Parameter& kernel, Parameter* bias,
              Activation activation, const float* out, float* gradOut, float* gradIn)
{
    const Device d = kernel.value.device();
    const int64_t units = kernel.value.shape().back();
    activationBackward(activation, out, gradOut, rows, units, d);
    if (const int threads = ownerThreadsFor(d, rows, width, units); threads > 1) {
        if (bias)
            columnSumsOn(d, gradOut, rows, units, bias->grad.data());
        return ownedBackward(in, rows, width, kernel.value.data(), units, gradOut, kernel.grad.data(), gradIn,
                             threads);
    }
    // dW = in^T dz; db = column sums of dz; din = dz W^T
    gemmOn(d, true, false, width, units, rows, in, gradOut, 0.0f, kernel.grad.data());
    if (bias)
        columnSumsOn(d, gradOut, rows, units, bias->grad.data());
    if (gradIn)
        gemmOn(d, false, true, rows, width, units, gradOut, kernel.value.data(), 0.0f, gradIn);
}

} // namespace strata::nn::affine
