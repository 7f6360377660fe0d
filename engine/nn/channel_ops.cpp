#include "channel_ops.h"

#include "cuda/ops.h"
#include "tensor/parallel.h"

#include <algorithm>

namespace strata::nn {

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
    const int parts = std::max(1, static_cast<int>(std::min<int64_t>(parallel::threadsFor(a.numel() * 2), rows)));
    std::vector<ChannelSums> partial(static_cast<size_t>(parts), s);
    parallel::forRanges(parts, parallel::kMinWork, [&](int64_t first, int64_t last) {
        for (int64_t part = first; part < last; ++part) {
            double* sa = partial[static_cast<size_t>(part)].a.data();
            double* sab = partial[static_cast<size_t>(part)].ab.data();
            for (int64_t r = rows * part / parts; r < rows * (part + 1) / parts; ++r) {
                const float* ra = pa + r * channels;
                const float* rb = pb + r * channels;
                for (int64_t c = 0; c < channels; ++c) {
                    sa[c] += ra[c];
                    sab[c] += static_cast<double>(ra[c]) * rb[c];
                }
            }
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

void channelAffine(const Tensor& u, const Tensor* v, const ChannelCoefficients& coef, Tensor& out)
{
    const int64_t channels = static_cast<int64_t>(coef.host().size() / 3);
    const int64_t rows = u.numel() / channels;
    if (!u.device().isCpu()) {
        cuda::ops().channelAffine(u.device().index, u.data(), v ? v->data() : nullptr, rows, channels,
                            coef.on(u.device()), out.data());
        return;
    }
    const float* p = coef.host().data();
    const float* q = p + channels;
    const float* r = q + channels;
    const float* pu = u.data();
    const float* pv = v ? v->data() : nullptr;
    float* po = out.data();
    parallel::forRanges(rows, channels, [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
            const int64_t o = row * channels;
            if (pv) {
                for (int64_t c = 0; c < channels; ++c)
                    po[o + c] = p[c] * pu[o + c] + q[c] * pv[o + c] + r[c];
            } else {
                for (int64_t c = 0; c < channels; ++c)
                    po[o + c] = p[c] * pu[o + c] + r[c];
            }
        }
    });
}

} // namespace strata::nn
