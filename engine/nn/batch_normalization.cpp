#include "strata/nn/batch_normalization.h"

#include "channel_ops.h"

#include <algorithm>
#include <cmath>

namespace strata::nn {

namespace {

std::vector<double> hostValues(const Tensor& t)
{
    const Tensor host = t.to(Device::cpu());
    return {host.values().begin(), host.values().end()};
}

void writeValues(Tensor& t, const std::vector<double>& values)
{
    Tensor host(t.shape());
    std::transform(values.begin(), values.end(), host.data(), [](double v) { return static_cast<float>(v); });
    t.copyFrom(host);
}

} // namespace

BatchNormalization::BatchNormalization(const schema::LayerSpec& spec, const Shape& inputShape, Rng& rng)
    : Layer(spec, inputShape, inputShape), m_channels(inputShape.back()), m_momentum(spec.number("momentum")),
      m_epsilon(spec.number("epsilon")), m_synchronized(spec.flag("synchronized")),
      m_coef(std::make_unique<ChannelCoefficients>())
{
    createParameters(rng);
}

BatchNormalization::~BatchNormalization() = default;

Parameter* BatchNormalization::gamma()
{
    for (auto& p : m_params)
        if (p.name.ends_with("/gamma"))
            return &p;
    return nullptr;
}

Parameter* BatchNormalization::beta()
{
    for (auto& p : m_params)
        if (p.name.ends_with("/beta"))
            return &p;
    return nullptr;
}

void BatchNormalization::batchStatistics(const Tensor* x, const ForwardContext& ctx)
{
    const size_t c = static_cast<size_t>(m_channels);
    ChannelSums sums = x ? channelSums(*x, nullptr, m_channels)
                         : ChannelSums{std::vector<double>(c, 0.0), std::vector<double>(c, 0.0)};
    m_count = x ? static_cast<double>(x->numel() / m_channels) : 0.0;
    m_sum = m_synchronized ? ctx.crossReplicaSum : nullptr;
    if (m_sum) {
        std::vector<double> packed = sums.a;
        packed.insert(packed.end(), sums.ab.begin(), sums.ab.end());
        crossReplicaSum(packed, m_count);
        std::copy_n(packed.begin(), c, sums.a.begin());
        std::copy_n(packed.begin() + static_cast<std::ptrdiff_t>(c), c, sums.ab.begin());
    }
    if (m_count <= 0)
        return;
    m_mean.assign(c, 0.0);
    m_invStd.assign(c, 0.0);
    Parameter& movingMean = m_states[0];
    Parameter& movingVariance = m_states[1];
    std::vector<double> mm = hostValues(movingMean.value), mv = hostValues(movingVariance.value);
    for (size_t i = 0; i < c; ++i) {
        const double mean = sums.a[i] / m_count;
        const double variance = std::max(sums.ab[i] / m_count - mean * mean, 0.0);
        m_mean[i] = mean;
        m_invStd[i] = 1.0 / std::sqrt(variance + m_epsilon);
        mm[i] = mm[i] * m_momentum + mean * (1.0 - m_momentum);
        mv[i] = mv[i] * m_momentum + variance * (1.0 - m_momentum);
    }
    writeValues(movingMean.value, mm);
    writeValues(movingVariance.value, mv);
}

void BatchNormalization::crossReplicaSum(std::vector<double>& values, double& count) const
{
    // The count rides along as the last value.
    values.push_back(count);
    (*m_sum)(std::span<double>(values));
    count = values.back();
    values.pop_back();
}

const Tensor& BatchNormalization::forward(const Tensor& x, const ForwardContext& ctx)
{
    checkInput(x);
    m_input = x;
    m_training = ctx.training;
    if (m_training) {
        batchStatistics(&x, ctx);
    } else {
        m_mean = hostValues(m_states[0].value);
        m_invStd = hostValues(m_states[1].value);
        for (double& v : m_invStd)
            v = 1.0 / std::sqrt(v + m_epsilon);
        m_sum = nullptr;
    }
    const size_t c = static_cast<size_t>(m_channels);
    const std::vector<double> g = gamma() ? hostValues(gamma()->value) : std::vector<double>(c, 1.0);
    const std::vector<double> b = beta() ? hostValues(beta()->value) : std::vector<double>(c, 0.0);
    // y = a x + (beta - mean a), a = gamma / sqrt(variance + epsilon)
    std::vector<float> coef(3 * c, 0.0f);
    for (size_t i = 0; i < c; ++i) {
        const double a = g[i] * m_invStd[i];
        coef[i] = static_cast<float>(a);
        coef[2 * c + i] = static_cast<float>(b[i] - m_mean[i] * a);
    }
    m_coef->set(std::move(coef), x.device());
    m_output.ensureShape(x.shape(), x.device());
    channelAffine(x, nullptr, *m_coef, m_output, m_outputRelu);
    return m_output;
}

bool BatchNormalization::absorbOutputActivation(Activation a)
{
    m_outputRelu = a == Activation::Relu;
    return m_outputRelu;
}

Tensor BatchNormalization::backward(Tensor& dy, bool needInputGrad)
{
    const size_t c = static_cast<size_t>(m_channels);
    const ChannelSums sums = channelSums(dy, &m_input, m_channels);
    // sum of dy * xhat, xhat = (x - mean) / std
    std::vector<double> dyXhat(c), dySum = sums.a;
    for (size_t i = 0; i < c; ++i)
        dyXhat[i] = m_invStd[i] * (sums.ab[i] - m_mean[i] * sums.a[i]);
    if (Parameter* g = gamma())
        writeValues(g->grad, dyXhat);
    if (Parameter* b = beta())
        writeValues(b->grad, dySum);
    if (!needInputGrad)
        return {};
    const std::vector<double> g = gamma() ? hostValues(gamma()->value) : std::vector<double>(c, 1.0);
    std::vector<float> coef(3 * c, 0.0f);
    if (m_training) {
        // Through the batch statistics: dx = a (dy - mean(dy) - xhat mean(dy xhat)), over the
        // global batch when synchronized, written as p dy + q x + r per channel.
        if (m_sum) {
            std::vector<double> packed = dySum;
            packed.insert(packed.end(), dyXhat.begin(), dyXhat.end());
            double ignored = 0;
            crossReplicaSum(packed, ignored);
            std::copy_n(packed.begin(), c, dySum.begin());
            std::copy_n(packed.begin() + static_cast<std::ptrdiff_t>(c), c, dyXhat.begin());
        }
        for (size_t i = 0; i < c; ++i) {
            const double a = g[i] * m_invStd[i];
            const double q = -a * m_invStd[i] * dyXhat[i] / m_count;
            coef[i] = static_cast<float>(a);
            coef[c + i] = static_cast<float>(q);
            coef[2 * c + i] = static_cast<float>(-a * dySum[i] / m_count - q * m_mean[i]);
        }
    } else {
        for (size_t i = 0; i < c; ++i)
            coef[i] = static_cast<float>(g[i] * m_invStd[i]);
    }
    m_coef->set(std::move(coef), dy.device());
    m_gradInput.ensureShape(dy.shape(), dy.device());
    channelAffine(dy, &m_input, *m_coef, m_gradInput);
    return m_gradInput;
}

void BatchNormalization::joinWithoutData(const ForwardContext& ctx, bool backward, bool needInputGrad)
{
    if (!m_synchronized || !ctx.training || !ctx.crossReplicaSum)
        return;
    if (!backward) {
        batchStatistics(nullptr, ctx);
        return;
    }
    if (needInputGrad) {
        std::vector<double> zeros(2 * static_cast<size_t>(m_channels), 0.0);
        double ignored = 0;
        crossReplicaSum(zeros, ignored);
    }
}

} // namespace strata::nn
