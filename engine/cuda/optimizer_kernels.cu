#include "launch.cuh"
#include "nn/math/optimizer_math.h"
#include "cuda_ops.h"

namespace strata::cuda {

void CudaOps::sgd(int device, float lr, float momentum, bool nesterov, float* w, const float* g, float* velocity, int64_t n)
{
    const nn::math::SgdStep step{lr, momentum, nesterov};
    if (!velocity)
        return forEach(device, n, [=] __device__(int64_t i) { step(w[i], g[i]); }, "sgd");
    forEach(device, n, [=] __device__(int64_t i) { step(w[i], g[i], velocity[i]); }, "sgdMomentum");
}

void CudaOps::adam(int device, float alpha, float beta1, float beta2, float epsilon, float* w, const float* g, float* m, float* v,
          int64_t n)
{
    const nn::math::AdamStep step{alpha, beta1, beta2, epsilon};
    forEach(device, n, [=] __device__(int64_t i) { step(w[i], g[i], m[i], v[i]); }, "adam");
}

void CudaOps::rmsprop(int device, float rho, float lr, float epsilon, float momentum, float* w, const float* g, float* v,
             float* mom, float* mg, int64_t n)
{
    const nn::math::RmsPropStep step{rho, lr, epsilon, momentum};
    forEach(device, n, [=] __device__(int64_t i) {
        step(w[i], g[i], v[i], mom ? mom + i : nullptr, mg ? mg + i : nullptr);
    }, "rmsprop");
}

} // namespace strata::cuda
