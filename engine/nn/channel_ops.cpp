#include "channel_ops.h"

#include "cuda/ops.h"
#include "strata/nn/activation.h"
#include "tensor/parallel.h"

#include <algorithm>

namespace strata::nn {

namespace {

// Work per element of a channel pass, for parallel::threadsFor: it moves 2-3 floats and does 2
// multiply-adds. Counted as 1, the CNN's second BatchNormalization (64 x 11 x 11 x 64) stayed
// on one thread, reading and writing data that both threads' convolution and pooling around it
// hold: 2 threads took 307 / 307 us a step there, against 180 / 204 us split (AMD EPYC, Zen 4).
constexpr int64_t kWork = 4;

// The loops over rows, vectorized over channels (each channel's sum keeps its order); cloned
// for AVX-512 and AVX2 because the engine otherwise builds for baseline x86-64.
__attribute__((target_clones("avx512f", "avx2", "default"))) void
sumRows(const float* __restrict a, const float* __restrict b, int64_t rows, int64_t channels, double* __restrict sa,
        double* __restrict sab)
{
    for (int64_t r = 0; r < rows; ++r) {
        const float* ra = a + r * channels;
        const float* rb = b + r * channels;
        for (int64_t c = 0; c < channels; ++c) {
            sa[c] += ra[c];
            sab[c] += static_cast<double>(ra[c]) * rb[c];
        }
    }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void
affineRows(const float* __restrict u, const float* __restrict v, int64_t rows, int64_t channels,
           const float* __restrict p, const float* __restrict q, const float* __restrict r, bool relu,
           float* __restrict out)
{
    for (int64_t row = 0; row < rows; ++row) {
        const int64_t o = row * channels;
        if (v) {
            for (int64_t c = 0; c < channels; ++c)
                out[o + c] = p[c] * u[o + c] + q[c] * v[o + c] + r[c];
        } else if (relu) {
            for (int64_t c = 0; c < channels; ++c)
                out[o + c] = std::max(p[c] * u[o + c] + r[c], 0.0f);
        } else {
            for (int64_t c = 0; c < channels; ++c)
                out[o + c] = p[c] * u[o + c] + r[c];
        }
    }
}

} // namespace

ChannelSums channelSums(const Tensor& a, const Tensor* b, int64_t channels)
{
    const int64_t rows = a.numel() / channels;
    ChannelSums s{std::vector<double>(static_cast<size_t>(channels), 0.0),
                  std::vector<double>(static_cast<size_t>(channels), 0.0)};
    if (!a.device().isCpu()) {
        std::vector<double> both(static_cast<size_t>(2 * channels));
        cuda::ops().channelSums(a.device().index, a.data(), b ? b->data() : nullptr, rows, channels, both.data());
        std::copy_n(both.begin(), channels, s.a.begin());
        std::copy_n(both.begin() + channels, channels, s.ab.begin());
        return s;
    }
    const float* pa = a.data();
    const float* pb = b ? b->data() : a.data();
    // Each thread sums its rows into its own partial sums; they are added in thread order.
    const int parts = std::max(1, static_cast<int>(std::min<int64_t>(parallel::threadsFor(a.numel() * kWork), rows)));
    std::vector<ChannelSums> partial(static_cast<size_t>(parts), s);
    parallel::forRanges(parts, parallel::kMinWork, [&](int64_t first, int64_t last) {
        for (int64_t part = first; part < last; ++part) {
            const int64_t r0 = rows * part / parts, r1 = rows * (part + 1) / parts;
            sumRows(pa + r0 * channels, pb + r0 * channels, r1 - r0, channels,
                    partial[static_cast<size_t>(part)].a.data(), partial[static_cast<size_t>(part)].ab.data());
        }
    });
    for (const auto& p : partial)
        for (size_t c = 0; c < s.a.size(); ++c) {
            s.a[c] += p.a[c];
            s.ab[c] += p.ab[c];
        }
    return s;
}

void ChannelCoefficients::set(std::vector<float> coef, Device device)
{
    m_host = std::move(coef);
    if (device.isCpu())
        return;
    const Shape shape{static_cast<int64_t>(m_host.size())};
    m_device.ensureShape(shape, device);
    Tensor host(shape);
    std::copy(m_host.begin(), m_host.end(), host.data());
    m_device.copyFrom(host);
}

void channelAffine(const Tensor& u, const Tensor* v, const ChannelCoefficients& coef, Tensor& out, bool relu)
{
    const int64_t channels = static_cast<int64_t>(coef.host().size() / 3);
    const int64_t rows = u.numel() / channels;
    if (!u.device().isCpu()) {
        cuda::ops().channelAffine(u.device().index, u.data(), v ? v->data() : nullptr, rows, channels,
                            coef.on(u.device()), out.data());
        if (relu)
            activationForward(Activation::Relu, out.data(), rows, channels, out.device());
        return;
    }
    const float* p = coef.host().data();
    const float* q = p + channels;
    const float* r = q + channels;
    const float* pu = u.data();
    const float* pv = v ? v->data() : nullptr;
    float* po = out.data();
    parallel::forRanges(rows, channels * kWork, [&](int64_t begin, int64_t end) {
        affineRows(pu + begin * channels, pv ? pv + begin * channels : nullptr, end - begin, channels, p, q, r, relu,
                   po + begin * channels);
    });
}

} // namespace strata::nn
