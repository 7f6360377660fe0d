#include "affine.h"

#include "strata/tensor/blas.h"
#include "tensor/parallel.h"

#include <algorithm>
#include <vector>

namespace strata::nn::affine {

void forward(const float* in, int64_t rows, int64_t width, const Parameter& kernel, const Parameter* bias,
             Activation activation, float* out)
{
    const int64_t units = kernel.value.shape().back();
    if (bias) {
        const float* b = bias->value.data();
        parallel::forRanges(rows, units, [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; ++r)
                std::copy(b, b + units, out + r * units);
        });
    }
    blas::gemm(blas::Trans::No, blas::Trans::No, rows, units, width, 1.0f, in, kernel.value.data(), bias ? 1.0f : 0.0f,
               out);
    activationForward(activation, out, rows, units);
}

void backward(const float* in, int64_t rows, int64_t width, Parameter& kernel, Parameter* bias,
              Activation activation, const float* out, float* gradOut, float* gradIn)
{
    const int64_t units = kernel.value.shape().back();
    activationBackward(activation, out, gradOut, rows, units);
    // dW = in^T dz; db = column sums of dz; din = dz W^T
    blas::gemm(blas::Trans::Yes, blas::Trans::No, width, units, rows, 1.0f, in, gradOut, 0.0f, kernel.grad.data());
    if (bias) {
        // Column sums as a GEMM with a row of ones: vectorized and threaded like the rest.
        thread_local std::vector<float> ones;
        if (ones.size() < static_cast<size_t>(rows))
            ones.assign(static_cast<size_t>(rows), 1.0f);
        blas::gemm(blas::Trans::No, blas::Trans::No, 1, units, rows, 1.0f, ones.data(), gradOut, 0.0f,
                   bias->grad.data());
    }
    if (gradIn)
        blas::gemm(blas::Trans::No, blas::Trans::Yes, rows, width, units, 1.0f, gradOut, kernel.value.data(), 0.0f,
                   gradIn);
}

} // namespace strata::nn::affine
