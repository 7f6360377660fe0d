#pragma once
// The CUDA module's implementation of the backend's table (cuda/ops.h): each operation is
// defined in the file its section of ops.h names. Module-internal.

#include "ops.h"

namespace strata::cuda {

class CudaOps final : public Ops {
public:
    std::string description() override;
    std::vector<gpu::GpuInfo> devices() override;
    std::optional<gpu::GpuUsage> usage(int index) override;
    void* allocate(int device, size_t bytes) override;
    void deallocate(int device, void* p) override;
    void copyToDevice(int device, float* dst, const float* src, int64_t n) override;
    void copyToHost(int device, float* dst, const float* src, int64_t n) override;
    void copyOnDevice(int device, float* dst, const float* src, int64_t n) override;
    void copyBetweenDevices(int dstDevice, float* dst, int srcDevice, const float* src, int64_t n) override;
    void synchronize(int device) override;
    void fill(int device, float* p, int64_t n, float value) override;
    void multiply(int device, const float* a, const float* b, float* out, int64_t n) override;
    void add(int device, const float* a, float* out, int64_t n) override;
    void sumBuffers(int device, const float* const* buffers, int count, float* out, int64_t n) override;
    bool unscale(int device, float* g, int64_t n, float factor) override;
    void axpy(int device, float a, const float* x, float* y, int64_t n) override;
    double sumOfSquares(int device, const float* p, int64_t n) override;
    void broadcastRow(int device, const float* row, int64_t cols, float* out, int64_t rows) override;
    void transpose(int device, const float* in, int64_t rows, int64_t cols, float* out) override;
    void gemm(int device, bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a, const float* b, float beta, float* c) override;
    void gemmStrided(int device, bool transA, bool transB, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) override;
    void columnSums(int device, const float* in, int64_t rows, int64_t cols, float* out) override;
    void activationForward(int device, nn::Activation a, float* values, int64_t rows, int64_t cols) override;
    void activationBackward(int device, nn::Activation a, const float* y, float* grad, int64_t rows, int64_t cols) override;
    bool embeddingForward(int device, const float* ids, int64_t n, const float* table, int64_t vocab, int64_t dim, float* out, float* badId) override;
    void embeddingBackward(int device, const float* ids, int64_t n, const float* dy, int64_t vocab, int64_t dim, float* grad) override;
    void averageSteps(int device, const float* in, int64_t batch, int64_t steps, int64_t features, float* out) override;
    void spreadSteps(int device, const float* dy, int64_t batch, int64_t steps, int64_t features, float* dx) override;
    void pad(int device, const Padding& p, const float* in, float value, float* out) override;
    void crop(int device, const Padding& p, const float* padded, float* out) override;
    void channelSums(int device, const float* a, const float* b, int64_t rows, int64_t channels, double* out) override;
    void channelAffine(int device, const float* u, const float* v, int64_t rows, int64_t channels, const float* coef, float* out) override;
    void lstmForwardStep(int device, nn::Activation act, nn::Activation rec, const nn::math::LstmForwardStep& s) override;
    void lstmBackwardStep(int device, nn::Activation act, nn::Activation rec, const nn::math::LstmBackwardStep& s) override;
    void gruForwardStep(int device, nn::Activation act, nn::Activation rec, const nn::math::GruForwardStep& s) override;
    void gruBackwardStep(int device, nn::Activation act, nn::Activation rec, const nn::math::GruBackwardStep& s) override;
    void gruResetStep(int device, nn::Activation rec, const nn::math::GruResetStep& s) override;
    void gruCandidateStep(int device, nn::Activation act, const nn::math::GruCandidateStep& s) override;
    void gruCandidateBackStep(int device, nn::Activation act, nn::Activation rec, const nn::math::GruCandidateBackStep& s) override;
    void gruResetBackStep(int device, nn::Activation rec, const nn::math::GruResetBackStep& s) override;
    void fillRows(int device, float* p, int64_t rows, int64_t cols, int64_t stride, float value) override;
    void convForward(int device, const ConvGeometry& g, const float* x, const float* w, float beta, float* y) override;
    void convBackwardData(int device, const ConvGeometry& g, const float* w, const float* dy, float* dx) override;
    void convBackwardFilter(int device, const ConvGeometry& g, const float* x, const float* dy, float* dw) override;
    void maxPoolForward(int device, const ConvGeometry& g, const float* x, float* y) override;
    void maxPoolBackward(int device, const ConvGeometry& g, const float* x, const float* y, const float* dy, float* dx) override;
    void averagePoolForward(int device, const ConvGeometry& g, const float* x, float* y) override;
    void averagePoolBackward(int device, const ConvGeometry& g, const float* x, const float* y, const float* dy, float* dx) override;
    void averagePoolPaddedForward(int device, const ConvGeometry& g, const float* x, float* y) override;
    void averagePoolPaddedBackward(int device, const ConvGeometry& g, const float* dy, float* dx) override;
    void layerNormForward(int device, const float* x, int64_t rows, int64_t width, float epsilon, const float* gamma, const float* beta, float* xhat, float* invStd, float* y) override;
    void layerNormBackward(int device, const float* xhat, const float* invStd, const float* gamma, const float* dy, int64_t rows, int64_t width, float* dx) override;
    LossResult lossSum(int device, LossKind kind, bool logits, const float* pred, const float* target, int64_t rows, int64_t width, float* grad, float scale, float perExample) override;
    double metricSum(int device, nn::math::MetricKind kind, const float* pred, const float* target, int64_t units, int64_t width, float threshold) override;
    void sgd(int device, float lr, float momentum, bool nesterov, float* w, const float* g, float* velocity, int64_t n) override;
    void adam(int device, float alpha, float beta1, float beta2, float epsilon, float* w, const float* g, float* m, float* v, int64_t n) override;
    void rmsprop(int device, float rho, float lr, float epsilon, float momentum, float* w, const float* g, float* v, float* mom, float* mg, int64_t n) override;
};

// The module's one table, for its own files' calls to each other's operations.
CudaOps& backend();

} // namespace strata::cuda
