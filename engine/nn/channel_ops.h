#pragma once
// Per-channel reductions and affine maps over (rows x channels) data, on the data's device:
// what the normalization layers compute with (their per-channel arithmetic runs on the host
// in double, between these passes over the data).

#include "strata/tensor/tensor.h"

#include <vector>

namespace strata::nn {

struct ChannelSums {
    std::vector<double> a;  // sum over rows of a
    std::vector<double> ab; // sum over rows of a * b (a * a without b)
};

// `a` (and `b`) hold rows x `channels` values, channels fastest.
ChannelSums channelSums(const Tensor& a, const Tensor* b, int64_t channels);

// Per-channel coefficients (p, q, r), 3 x channels, with a copy on the device the data is on.
class ChannelCoefficients {
public:
    void set(std::vector<float> coef, Device device);
    const std::vector<float>& host() const { return m_host; }
    const float* on(Device device) const { return device.isCpu() ? m_host.data() : m_device.data(); }

private:
    std::vector<float> m_host;
    Tensor m_device;
};

// out = p[c] * u + q[c] * v + r[c] for every row (v may be null: q is then ignored); through
// a ReLU when `relu` (without v), in the same pass on the CPU.
void channelAffine(const Tensor& u, const Tensor* v, const ChannelCoefficients& coef, Tensor& out,
                   bool relu = false);

} // namespace strata::nn
