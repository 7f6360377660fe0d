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

} // namespace

void forward(const float* in, int64_t rows, int64_t width, const Parameter& kernel, const Parameter* bias,
             Activation activation, float* out)
{
    const Device d = kernel.value.device();
    const int64_t units = kernel.value.shape().back();
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
    // dW = in^T dz; db = column sums of dz; din = dz W^T
    gemmOn(d, true, false, width, units, rows, in, gradOut, 0.0f, kernel.grad.data());
    if (bias)
        columnSumsOn(d, gradOut, rows, units, bias->grad.data());
    if (gradIn)
        gemmOn(d, false, true, rows, width, units, gradOut, kernel.value.data(), 0.0f, gradIn);
}

} // namespace strata::nn::affine
