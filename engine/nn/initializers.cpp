#include "strata/nn/initializers.h"

#include "strata/core/error.h"

#include <cmath>

namespace strata::nn {

namespace {
// Keras' compute_fans: the last two axes are (fan_in, fan_out), earlier ones the receptive field.
void fans(const Shape& s, double& fanIn, double& fanOut)
{
    if (s.rank() == 0) {
        fanIn = fanOut = 1;
    } else if (s.rank() == 1) {
        fanIn = fanOut = static_cast<double>(s[0]);
    } else {
        double receptive = 1;
        for (int i = 0; i < s.rank() - 2; ++i)
            receptive *= static_cast<double>(s[i]);
        fanIn = static_cast<double>(s[s.rank() - 2]) * receptive;
        fanOut = static_cast<double>(s[s.rank() - 1]) * receptive;
    }
}

// Keras' VarianceScaling: the stddev of a normal truncated at 2 sigma is 0.8796 of the untruncated.
constexpr double kTruncatedStddev = 0.87962566103423978;

void fillUniform(Tensor& t, double limit, Rng& rng)
{
    for (float& v : t.values())
        v = static_cast<float>(rng.uniform(-limit, limit));
}

void fillTruncatedNormal(Tensor& t, double stddev, Rng& rng)
{
    for (float& v : t.values())
        v = static_cast<float>(rng.truncatedNormal() * stddev / kTruncatedStddev);
}
} // namespace

void initialize(Tensor& t, const std::string& name, Rng& rng)
{
    double fanIn = 1, fanOut = 1;
    fans(t.shape(), fanIn, fanOut);
    if (name == "zeros")
        t.fill(0.0f);
    else if (name == "ones")
        t.fill(1.0f);
    else if (name == "glorot_uniform")
        fillUniform(t, std::sqrt(6.0 / (fanIn + fanOut)), rng);
    else if (name == "glorot_normal")
        fillTruncatedNormal(t, std::sqrt(2.0 / (fanIn + fanOut)), rng);
    else if (name == "he_uniform")
        fillUniform(t, std::sqrt(6.0 / fanIn), rng);
    else if (name == "he_normal")
        fillTruncatedNormal(t, std::sqrt(2.0 / fanIn), rng);
    else if (name == "lecun_uniform")
        fillUniform(t, std::sqrt(3.0 / fanIn), rng);
    else if (name == "lecun_normal")
        fillTruncatedNormal(t, std::sqrt(1.0 / fanIn), rng);
    else if (name == "uniform")
        fillUniform(t, 0.05, rng);
    else if (name == "normal")
        for (float& v : t.values())
            v = static_cast<float>(rng.normal() * 0.05);
    else
        throw ConfigError("", "unknown initializer \"" + name + "\"");
}

} // namespace strata::nn
