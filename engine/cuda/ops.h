#pragma once
// The CUDA backend's operations (engine/cuda): device memory and the compute the layers,
// losses, metrics and optimizers run on gpu:N. Pointers are device memory of gpu:`device`;
// work runs in order on the calling thread's stream for that device (one per replica
// thread), so a replica's ops never wait on another's. Failures throw GpuError naming the
// device and the call.
//
// Declared whether or not the backend is built: callers branch with `if constexpr
// (cuda::kBuilt)`, so a build without CUDA never references them, and a gpu:N tensor cannot
// exist there (allocating one throws). C++17 and CUDA-free, for .cu and .cpp alike.

#include "strata/nn/activation_kind.h"
#include "nn/math/metric_math.h"
#include "nn/math/recurrent_math.h"

#include <cstddef>
#include <cstdint>

namespace strata::cuda {

#if STRATA_HAVE_CUDA
inline constexpr bool kBuilt = true;
#else
inline constexpr bool kBuilt = false;
#endif

// --- memory (device_memory.cpp) ---
// From the device's caching allocator (cudaMalloc underneath, never managed memory).
void* allocate(int device, size_t bytes);
void deallocate(int device, void* p);
void copyToDevice(int device, float* dst, const float* src, int64_t n);
// Waits for the stream: the values are on the host when it returns.
void copyToHost(int device, float* dst, const float* src, int64_t n);
void copyOnDevice(int device, float* dst, const float* src, int64_t n);
void copyBetweenDevices(int dstDevice, float* dst, int srcDevice, const float* src, int64_t n);
void synchronize(int device);

// --- elementwise (elementwise_kernels.cu) ---
void fill(int device, float* p, int64_t n, float value);
// out[i] = a[i] * b[i]
void multiply(int device, const float* a, const float* b, float* out, int64_t n);
// out[i] += a[i]
void add(int device, const float* a, float* out, int64_t n);
// out[i] = buffers[0][i] + buffers[1][i] + ... (in that order), for `count` <= kMaxSummands
// buffers of the same GPU.
constexpr int kMaxSummands = 64;
void sumBuffers(int device, const float* const* buffers, int count, float* out, int64_t n);
// g[i] *= factor; false when any result is infinite or NaN (loss scaling).
bool unscale(int device, float* g, int64_t n, float factor);
// y[i] += a * x[i]
void axpy(int device, float a, const float* x, float* y, int64_t n);
// The sum of squares in double precision (L2 regularization).
double sumOfSquares(int device, const float* p, int64_t n);
// Every one of `rows` rows of `out` (cols wide) set to `row`.
void broadcastRow(int device, const float* row, int64_t cols, float* out, int64_t rows);
// out (cols x rows) = in (rows x cols) transposed.
void transpose(int device, const float* in, int64_t rows, int64_t cols, float* out);

// --- GEMM (gemm.cpp), row-major as blas::gemm ---
void gemm(int device, bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          const float* b, float beta, float* c);
// The same on sub-matrices with the given leading dimensions (row starts' distances), as
// blas::gemm's strided form.
void gemmStrided(int device, bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
// Column sums of `in` (rows x cols) into `out` (cols): a GEMM with a row of ones.
void columnSums(int device, const float* in, int64_t rows, int64_t cols, float* out);

// --- activations (activation_kernels.cu), as nn::activationForward / Backward ---
void activationForward(int device, nn::Activation a, float* values, int64_t rows, int64_t cols);
void activationBackward(int device, nn::Activation a, const float* y, float* grad, int64_t rows, int64_t cols);

// --- layers' own kernels (layer_kernels.cu) ---
// Embedding rows for float token ids; returns false (and the first bad id in `badId`) when an
// id is not in [0, vocab).
bool embeddingForward(int device, const float* ids, int64_t n, const float* table, int64_t vocab, int64_t dim,
                      float* out, float* badId);
// grad (vocab x dim) = the rows of dy added at their ids.
void embeddingBackward(int device, const float* ids, int64_t n, const float* dy, int64_t vocab, int64_t dim,
                       float* grad);
// out (batch x features) = mean over steps of in (batch x steps x features), and its adjoint.
void averageSteps(int device, const float* in, int64_t batch, int64_t steps, int64_t features, float* out);
void spreadSteps(int device, const float* dy, int64_t batch, int64_t steps, int64_t features, float* dx);
// NHWC images padded with `value` (top/left and bottom/right amounts), and the crop back
// (the padding's adjoint for gradients).
struct Padding {
    int64_t batch, height, width, channels, top, bottom, left, right;
};
void pad(int device, const Padding& p, const float* in, float value, float* out);
void crop(int device, const Padding& p, const float* padded, float* out);

// --- normalization (normalization_kernels.cu), over (rows x channels) data ---
// Per channel c, in double: out[c] = sum of a, out[channels + c] = sum of a * b (a * a when
// b is null); `out` is host memory (2 * channels), filled when the call returns.
void channelSums(int device, const float* a, const float* b, int64_t rows, int64_t channels, double* out);
// out = p[c] * u + q[c] * v + r[c] with coef = (p, q, r), 3 * channels device values; v may be null.
void channelAffine(int device, const float* u, const float* v, int64_t rows, int64_t channels, const float* coef,
                   float* out);

// --- recurrent layers (recurrent_kernels.cu): one time step's gate pass, a thread per
// (example, unit), the arithmetic of nn/math/recurrent_math.h; `act` and `rec` are the
// layer's activation and recurrent_activation ---
void lstmForwardStep(int device, nn::Activation act, nn::Activation rec, const nn::math::LstmForwardStep& s);
void lstmBackwardStep(int device, nn::Activation act, nn::Activation rec, const nn::math::LstmBackwardStep& s);
void gruForwardStep(int device, nn::Activation act, nn::Activation rec, const nn::math::GruForwardStep& s);
void gruBackwardStep(int device, nn::Activation act, nn::Activation rec, const nn::math::GruBackwardStep& s);
void gruResetStep(int device, nn::Activation rec, const nn::math::GruResetStep& s);
void gruCandidateStep(int device, nn::Activation act, const nn::math::GruCandidateStep& s);
void gruCandidateBackStep(int device, nn::Activation act, nn::Activation rec, const nn::math::GruCandidateBackStep& s);
void gruResetBackStep(int device, nn::Activation rec, const nn::math::GruResetBackStep& s);
// `rows` rows of `cols` values, row r at p + r * stride, set to `value`.
void fillRows(int device, float* p, int64_t rows, int64_t cols, int64_t stride, float value);

// --- convolution and pooling through cuDNN (cudnn_ops.cpp), NHWC, symmetric padding ---
struct ConvGeometry {
    int64_t batch, height, width, channels;       // input (already padded as needed)
    int64_t outHeight, outWidth, filters;
    int64_t kernelH, kernelW, strideH, strideW, padH, padW;
};
// y = conv(x, w) + beta * y, with w in cuDNN's KRSC (filters, kh, kw, channels) layout.
void convForward(int device, const ConvGeometry& g, const float* x, const float* w, float beta, float* y);
void convBackwardData(int device, const ConvGeometry& g, const float* w, const float* dy, float* dx);
void convBackwardFilter(int device, const ConvGeometry& g, const float* x, const float* dy, float* dw);
void maxPoolForward(int device, const ConvGeometry& g, const float* x, float* y);
void maxPoolBackward(int device, const ConvGeometry& g, const float* x, const float* y, const float* dy, float* dx);
// Means over the windows' values inside the image (cuDNN's COUNT_EXCLUDE_PADDING: TF's "same"
// when its padding is symmetric). dx is dy spread over each window; x and y are the forward's.
void averagePoolForward(int device, const ConvGeometry& g, const float* x, float* y);
void averagePoolBackward(int device, const ConvGeometry& g, const float* x, const float* y, const float* dy,
                         float* dx);

// --- pooling kernels (pooling_kernels.cu) ---
// Average pooling with TF's possibly asymmetric "same" padding, which cuDNN cannot express:
// g.padH and g.padW are the top and left padding (the bottom and right follow from the output
// size); each output is the mean of its window's values inside the image. The backward
// gathers, for each input, the outputs whose windows hold it.
void averagePoolPaddedForward(int device, const ConvGeometry& g, const float* x, float* y);
void averagePoolPaddedBackward(int device, const ConvGeometry& g, const float* dy, float* dx);

// --- layer normalization (layer_norm_kernels.cu), the nn/math row formulas ---
// Each of `rows` rows of `width` values normalized; xhat and invStd kept for the backward.
// gamma/beta may be null (scale/center off).
void layerNormForward(int device, const float* x, int64_t rows, int64_t width, float epsilon, const float* gamma,
                      const float* beta, float* xhat, float* invStd, float* y);
// dx from dy; the parameters' gradients are column sums the caller takes.
void layerNormBackward(int device, const float* xhat, const float* invStd, const float* gamma, const float* dy,
                       int64_t rows, int64_t width, float* dx);

// --- losses and metrics (loss_kernels.cu) ---
enum class LossKind { MeanSquaredError, SparseCategoricalCrossentropy, CategoricalCrossentropy, BinaryCrossentropy };
struct LossResult {
    double sum = 0;
    bool badLabel = false;
    float label = 0; // the first label that is not a class index
};
// The loss summed over rows (rows x width predictions; targets as the loss takes them), the
// gradient (times `scale`) into `grad` when not null. `perExample`: outputs averaged per
// example (MSE and binary cross-entropy).
LossResult lossSum(int device, LossKind kind, bool logits, const float* pred, const float* target, int64_t rows,
                   int64_t width, float* grad, float scale, float perExample);
// The metric's total over `units` (rows for the categorical accuracies, outputs otherwise).
double metricSum(int device, nn::math::MetricKind kind, const float* pred, const float* target, int64_t units,
                 int64_t width, float threshold);

// --- optimizers (optimizer_kernels.cu), the nn/math steps over n elements ---
void sgd(int device, float lr, float momentum, bool nesterov, float* w, const float* g, float* velocity, int64_t n);
void adam(int device, float alpha, float beta1, float beta2, float epsilon, float* w, const float* g, float* m, float* v,
          int64_t n);
void rmsprop(int device, float rho, float lr, float epsilon, float momentum, float* w, const float* g, float* v,
             float* mom, float* mg, int64_t n);

} // namespace strata::cuda
