// LayerNormalization's rows: a thread per row (an example's features), the nn/math formulas.

#include "launch.cuh"
#include "nn/math/layer_norm_math.h"
#include "cuda_ops.h"

namespace strata::cuda {

void CudaOps::layerNormForward(int device, const float* x, int64_t rows, int64_t width, float epsilon, const float* gamma,
                      const float* beta, float* xhat, float* invStd, float* y)
{
    forEach(device, rows, [=] __device__(int64_t r) {
        invStd[r] = nn::math::layerNormRow(x + r * width, width, epsilon, gamma, beta, xhat + r * width, y + r * width);
    }, "layerNormForward");
}

void CudaOps::layerNormBackward(int device, const float* xhat, const float* invStd, const float* gamma, const float* dy,
                       int64_t rows, int64_t width, float* dx)
{
    forEach(device, rows, [=] __device__(int64_t r) {
        nn::math::layerNormBackwardRow(xhat + r * width, invStd[r], gamma, dy + r * width, width, dx + r * width);
    }, "layerNormBackward");
}

} // namespace strata::cuda
