// Kernels of the layers without a library routine: Embedding, GlobalAveragePooling1D and 2D, and the
// explicit padding cuDNN needs for TensorFlow's asymmetric "same".

#include "launch.cuh"
#include "nn/math/loss_math.h"
#include "cuda_ops.h"

namespace strata::cuda {

bool CudaOps::embeddingForward(int device, const float* ids, int64_t n, const float* table, int64_t vocab, int64_t dim,
                      float* out, float* badId)
{
    Scratch<int> bad(device, 1);
    int* flag = bad.get();
    STRATA_GPU_CHECK(device, cudaMemsetAsync(flag, 0, sizeof(int), stream(device)));
    forEach(device, n * dim, [=] __device__(int64_t i) {
        const int64_t token = i / dim;
        const float id = ids[token];
        if (!nn::math::isClassIndex(id, vocab)) {
            flag[0] = 1;
            out[i] = 0.0f;
            return;
        }
        out[i] = table[static_cast<int64_t>(id) * dim + i % dim];
    }, "embeddingForward");
    int failed = 0;
    download(device, &failed, flag, 1);
    if (!failed)
        return true;
    // The first bad id, found on the host (a failing step is not a hot path).
    std::vector<float> host(static_cast<size_t>(n));
    download(device, host.data(), ids, n);
    for (float id : host)
        if (!nn::math::isClassIndex(id, vocab)) {
            *badId = id;
            break;
        }
    return false;
}

void CudaOps::embeddingBackward(int device, const float* ids, int64_t n, const float* dy, int64_t vocab, int64_t dim,
                       float* grad)
{
    fill(device, grad, vocab * dim, 0.0f);
    forEach(device, n * dim, [=] __device__(int64_t i) {
        atomicAdd(grad + static_cast<int64_t>(ids[i / dim]) * dim + i % dim, dy[i]);
    }, "embeddingBackward");
}

void CudaOps::averageSteps(int device, const float* in, int64_t batch, int64_t steps, int64_t features, float* out)
{
    const float scale = 1.0f / static_cast<float>(steps);
    forEach(device, batch * features, [=] __device__(int64_t i) {
        const int64_t n = i / features, f = i % features;
        float sum = 0;
        for (int64_t s = 0; s < steps; ++s)
            sum += in[(n * steps + s) * features + f];
        out[i] = sum * scale;
    }, "averageSteps");
}

void CudaOps::spreadSteps(int device, const float* dy, int64_t batch, int64_t steps, int64_t features, float* dx)
{
    const float scale = 1.0f / static_cast<float>(steps);
    forEach(device, batch * steps * features, [=] __device__(int64_t i) {
        const int64_t n = i / (steps * features), f = i % features;
        dx[i] = dy[n * features + f] * scale;
    }, "spreadSteps");
}

void CudaOps::pad(int device, const Padding& p, const float* in, float value, float* out)
{
    const int64_t ph = p.height + p.top + p.bottom, pw = p.width + p.left + p.right, c = p.channels;
    forEach(device, p.batch * ph * pw * c, [=] __device__(int64_t i) {
        const int64_t ch = i % c, x = (i / c) % pw, y = (i / (c * pw)) % ph, n = i / (c * pw * ph);
        const int64_t sy = y - p.top, sx = x - p.left;
        out[i] = sy >= 0 && sy < p.height && sx >= 0 && sx < p.width
                     ? in[((n * p.height + sy) * p.width + sx) * c + ch]
                     : value;
    }, "pad");
}

void CudaOps::crop(int device, const Padding& p, const float* padded, float* out)
{
    const int64_t ph = p.height + p.top + p.bottom, pw = p.width + p.left + p.right, c = p.channels;
    forEach(device, p.batch * p.height * p.width * c, [=] __device__(int64_t i) {
        const int64_t ch = i % c, x = (i / c) % p.width, y = (i / (c * p.width)) % p.height,
                      n = i / (c * p.width * p.height);
        out[i] = padded[((n * ph + y + p.top) * pw + x + p.left) * c + ch];
    }, "crop");
}

} // namespace strata::cuda
