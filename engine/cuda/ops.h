#pragma once
// The CUDA backend's operations: the table the CUDA module (engine/cuda, a shared library
// loaded on first GPU use) fills, as ggml's backend interface. Pointers are device memory of
// gpu:`device`; work runs in order on the calling thread's stream for that device (one per
// replica thread), so a replica's ops never wait on another's. Failures throw GpuError
// naming the device and the call.
//
// A gpu:N tensor exists only once the module is loaded (allocating one goes through ops()),
// so the layers branch on the device alone, in every build. C++17 and CUDA-free, for the
// engine's rooms and the module's .cu and .cpp files alike.

#include "strata/nn/activation_kind.h"
#include "strata/tensor/gpu.h"
#include "nn/math/metric_math.h"
#include "nn/math/recurrent_math.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::cuda {

// The most buffers sumBuffers adds in one call.
constexpr int kMaxSummands = 64;

struct Padding {
    int64_t batch, height, width, channels, top, bottom, left, right;
};

// A convolution's or pooling's shapes, NHWC, symmetric padding.
struct ConvGeometry {
    int64_t batch, height, width, channels;       // input (already padded as needed)
    int64_t outHeight, outWidth, filters;
    int64_t kernelH, kernelW, strideH, strideW, padH, padW;
};

enum class LossKind { MeanSquaredError, SparseCategoricalCrossentropy, CategoricalCrossentropy, BinaryCrossentropy };
struct LossResult {
    double sum = 0;
    bool badLabel = false;
    float label = 0; // the first label that is not a class index
};

class Ops {
public:
    virtual ~Ops() = default;

    // --- the GPUs (device_list.cpp) ---
    // "CUDA 13.0, cuDNN 9.13, NCCL 2.28": the libraries the module loaded.
    virtual std::string description() = 0;
    // The GPUs the CUDA runtime sees (CUDA_VISIBLE_DEVICES applies).
    virtual std::vector<gpu::GpuInfo> devices() = 0;
    // Utilization and memory of physical GPU `index` through NVML; nullopt without NVML.
    virtual std::optional<gpu::GpuUsage> usage(int index) = 0;

    // --- memory (device_memory.cpp) ---
    // From the device's caching allocator (cudaMalloc underneath, never managed memory).
    virtual void* allocate(int device, size_t bytes) = 0;
    virtual void deallocate(int device, void* p) = 0;
    virtual void copyToDevice(int device, float* dst, const float* src, int64_t n) = 0;
    // Waits for the stream: the values are on the host when it returns.
    virtual void copyToHost(int device, float* dst, const float* src, int64_t n) = 0;
    virtual void copyOnDevice(int device, float* dst, const float* src, int64_t n) = 0;
    virtual void copyBetweenDevices(int dstDevice, float* dst, int srcDevice, const float* src, int64_t n) = 0;
    virtual void synchronize(int device) = 0;

    // --- elementwise (elementwise_kernels.cu) ---
    virtual void fill(int device, float* p, int64_t n, float value) = 0;
    // out[i] = a[i] * b[i]
    virtual void multiply(int device, const float* a, const float* b, float* out, int64_t n) = 0;
    // out[i] += a[i]
    virtual void add(int device, const float* a, float* out, int64_t n) = 0;
    // out[i] = buffers[0][i] + buffers[1][i] + ... (in that order), for `count` <= kMaxSummands
    // buffers of the same GPU.
    virtual void sumBuffers(int device, const float* const* buffers, int count, float* out, int64_t n) = 0;
    // g[i] *= factor; false when any result is infinite or NaN (loss scaling).
    virtual bool unscale(int device, float* g, int64_t n, float factor) = 0;
    // y[i] += a * x[i]
    virtual void axpy(int device, float a, const float* x, float* y, int64_t n) = 0;
    // The sum of squares in double precision (L2 regularization).
    virtual double sumOfSquares(int device, const float* p, int64_t n) = 0;
    // Every one of `rows` rows of `out` (cols wide) set to `row`.
    virtual void broadcastRow(int device, const float* row, int64_t cols, float* out, int64_t rows) = 0;
    // out (cols x rows) = in (rows x cols) transposed.
    virtual void transpose(int device, const float* in, int64_t rows, int64_t cols, float* out) = 0;

    // --- GEMM (gemm.cpp), row-major as blas::gemm ---
    virtual void gemm(int device, bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
              const float* b, float beta, float* c) = 0;
    // The same on sub-matrices with the given leading dimensions (row starts' distances), as
    // blas::gemm's strided form.
    virtual void gemmStrided(int device, bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                     int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) = 0;
    // Column sums of `in` (rows x cols) into `out` (cols): a GEMM with a row of ones.
    virtual void columnSums(int device, const float* in, int64_t rows, int64_t cols, float* out) = 0;

    // --- activations (activation_kernels.cu), as nn::activationForward / Backward ---
    virtual void activationForward(int device, nn::Activation a, float* values, int64_t rows, int64_t cols) = 0;
    virtual void activationBackward(int device, nn::Activation a, const float* y, float* grad, int64_t rows, int64_t cols) = 0;

    // --- layers' own kernels (layer_kernels.cu) ---
    // Embedding rows for float token ids; returns false (and the first bad id in `badId`) when an
    // id is not in [0, vocab).
    virtual bool embeddingForward(int device, const float* ids, int64_t n, const float* table, int64_t vocab, int64_t dim,
                          float* out, float* badId) = 0;
    // grad (vocab x dim) = the rows of dy added at their ids.
    virtual void embeddingBackward(int device, const float* ids, int64_t n, const float* dy, int64_t vocab, int64_t dim,
                           float* grad) = 0;
    // out (batch x features) = mean over steps of in (batch x steps x features), and its adjoint.
    virtual void averageSteps(int device, const float* in, int64_t batch, int64_t steps, int64_t features, float* out) = 0;
    virtual void spreadSteps(int device, const float* dy, int64_t batch, int64_t steps, int64_t features, float* dx) = 0;
    // NHWC images padded with `value` (top/left and bottom/right amounts), and the crop back
    // (the padding's adjoint for gradients).
    virtual void pad(int device, const Padding& p, const float* in, float value, float* out) = 0;
    virtual void crop(int device, const Padding& p, const float* padded, float* out) = 0;

    // --- normalization (normalization_kernels.cu), over (rows x channels) data ---
    // Per channel c, in double: out[c] = sum of a, out[channels + c] = sum of a * b (a * a when
    // b is null); `out` is host memory (2 * channels), filled when the call returns.
    virtual void channelSums(int device, const float* a, const float* b, int64_t rows, int64_t channels, double* out) = 0;
    // out = p[c] * u + q[c] * v + r[c] with coef = (p, q, r), 3 * channels device values; v may be null.
    virtual void channelAffine(int device, const float* u, const float* v, int64_t rows, int64_t channels, const float* coef,
                       float* out) = 0;

    // --- recurrent layers (recurrent_kernels.cu): one time step's gate pass, a thread per
    // (example, unit), the arithmetic of nn/math/recurrent_math.h; `act` and `rec` are the
    // layer's activation and recurrent_activation ---
    virtual void lstmForwardStep(int device, nn::Activation act, nn::Activation rec, const nn::math::LstmForwardStep& s) = 0;
    virtual void lstmBackwardStep(int device, nn::Activation act, nn::Activation rec, const nn::math::LstmBackwardStep& s) = 0;
    virtual void gruForwardStep(int device, nn::Activation act, nn::Activation rec, const nn::math::GruForwardStep& s) = 0;
    virtual void gruBackwardStep(int device, nn::Activation act, nn::Activation rec, const nn::math::GruBackwardStep& s) = 0;
    virtual void gruResetStep(int device, nn::Activation rec, const nn::math::GruResetStep& s) = 0;
    virtual void gruCandidateStep(int device, nn::Activation act, const nn::math::GruCandidateStep& s) = 0;
    virtual void gruCandidateBackStep(int device, nn::Activation act, nn::Activation rec, const nn::math::GruCandidateBackStep& s) = 0;
    virtual void gruResetBackStep(int device, nn::Activation rec, const nn::math::GruResetBackStep& s) = 0;
    // `rows` rows of `cols` values, row r at p + r * stride, set to `value`.
    virtual void fillRows(int device, float* p, int64_t rows, int64_t cols, int64_t stride, float value) = 0;

    // --- convolution and pooling through cuDNN (cudnn_ops.cpp), NHWC, symmetric padding ---
    // y = conv(x, w) + beta * y, with w in cuDNN's KRSC (filters, kh, kw, channels) layout.
    virtual void convForward(int device, const ConvGeometry& g, const float* x, const float* w, float beta, float* y) = 0;
    virtual void convBackwardData(int device, const ConvGeometry& g, const float* w, const float* dy, float* dx) = 0;
    virtual void convBackwardFilter(int device, const ConvGeometry& g, const float* x, const float* dy, float* dw) = 0;
    virtual void maxPoolForward(int device, const ConvGeometry& g, const float* x, float* y) = 0;
    virtual void maxPoolBackward(int device, const ConvGeometry& g, const float* x, const float* y, const float* dy, float* dx) = 0;
    // Means over the windows' values inside the image (cuDNN's COUNT_EXCLUDE_PADDING: TF's "same"
    // when its padding is symmetric). dx is dy spread over each window; x and y are the forward's.
    virtual void averagePoolForward(int device, const ConvGeometry& g, const float* x, float* y) = 0;
    virtual void averagePoolBackward(int device, const ConvGeometry& g, const float* x, const float* y, const float* dy,
                             float* dx) = 0;

    // --- pooling kernels (pooling_kernels.cu) ---
    // Average pooling with TF's possibly asymmetric "same" padding, which cuDNN cannot express:
    // g.padH and g.padW are the top and left padding (the bottom and right follow from the output
    // size); each output is the mean of its window's values inside the image. The backward
    // gathers, for each input, the outputs whose windows hold it.
    virtual void averagePoolPaddedForward(int device, const ConvGeometry& g, const float* x, float* y) = 0;
    virtual void averagePoolPaddedBackward(int device, const ConvGeometry& g, const float* dy, float* dx) = 0;

    // --- layer normalization (layer_norm_kernels.cu), the nn/math row formulas ---
    // Each of `rows` rows of `width` values normalized; xhat and invStd kept for the backward.
    // gamma/beta may be null (scale/center off).
    virtual void layerNormForward(int device, const float* x, int64_t rows, int64_t width, float epsilon, const float* gamma,
                          const float* beta, float* xhat, float* invStd, float* y) = 0;
    // dx from dy; the parameters' gradients are column sums the caller takes.
    virtual void layerNormBackward(int device, const float* xhat, const float* invStd, const float* gamma, const float* dy,
                           int64_t rows, int64_t width, float* dx) = 0;

    // --- losses and metrics (loss_kernels.cu) ---
    // The loss summed over rows (rows x width predictions; targets as the loss takes them), the
    // gradient (times `scale`) into `grad` when not null. `perExample`: outputs averaged per
    // example (MSE and binary cross-entropy).
    virtual LossResult lossSum(int device, LossKind kind, bool logits, const float* pred, const float* target, int64_t rows,
                       int64_t width, float* grad, float scale, float perExample) = 0;
    // The metric's total over `units` (rows for the categorical accuracies, outputs otherwise).
    virtual double metricSum(int device, nn::math::MetricKind kind, const float* pred, const float* target, int64_t units,
                     int64_t width, float threshold) = 0;

    // --- optimizers (optimizer_kernels.cu), the nn/math steps over n elements ---
    virtual void sgd(int device, float lr, float momentum, bool nesterov, float* w, const float* g, float* velocity, int64_t n) = 0;
    virtual void adam(int device, float alpha, float beta1, float beta2, float epsilon, float* w, const float* g, float* m, float* v,
              int64_t n) = 0;
    virtual void rmsprop(int device, float rho, float lr, float epsilon, float momentum, float* w, const float* g, float* v,
                 float* mom, float* mg, int64_t n) = 0;
};

// The CUDA module's operations, loading it on first use (engine/tensor/gpu_module.cpp).
// Throws GpuError naming why when it cannot be loaded: an engine built without CUDA, or a
// CUDA library missing on this machine.
Ops& ops();

} // namespace strata::cuda
