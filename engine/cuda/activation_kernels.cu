#include "launch.cuh"
#include "nn/math/activation_math.h"
#include "cuda_ops.h"

namespace strata::cuda {

namespace {
template <typename F>
void forward(int device, float* v, int64_t n)
{
    forEach(device, n, [=] __device__(int64_t i) { v[i] = F::forward(v[i]); }, "activationForward");
}
template <typename F>
void backward(int device, const float* y, float* g, int64_t n)
{
    forEach(device, n, [=] __device__(int64_t i) { g[i] = F::backward(y[i], g[i]); }, "activationBackward");
}
} // namespace

void CudaOps::activationForward(int device, nn::Activation a, float* v, int64_t rows, int64_t cols)
{
    switch (a) {
    case nn::Activation::Linear: return;
    case nn::Activation::Relu: return forward<nn::math::Relu>(device, v, rows * cols);
    case nn::Activation::Sigmoid: return forward<nn::math::Sigmoid>(device, v, rows * cols);
    case nn::Activation::Tanh: return forward<nn::math::Tanh>(device, v, rows * cols);
    case nn::Activation::Softmax:
        // A thread per row: rows are a batch of class scores, short.
        return forEach(device, rows, [=] __device__(int64_t r) { nn::math::softmaxRow(v + r * cols, cols); },
                       "softmax");
    }
}

void CudaOps::activationBackward(int device, nn::Activation a, const float* y, float* g, int64_t rows, int64_t cols)
{
    switch (a) {
    case nn::Activation::Linear: return;
    case nn::Activation::Relu: return backward<nn::math::Relu>(device, y, g, rows * cols);
    case nn::Activation::Sigmoid: return backward<nn::math::Sigmoid>(device, y, g, rows * cols);
    case nn::Activation::Tanh: return backward<nn::math::Tanh>(device, y, g, rows * cols);
    case nn::Activation::Softmax:
        return forEach(device, rows, [=] __device__(int64_t r) {
            nn::math::softmaxBackwardRow(y + r * cols, g + r * cols, cols);
        }, "softmaxBackward");
    }
}

} // namespace strata::cuda
