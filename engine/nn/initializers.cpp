#include "strata/nn/initializers.h"

#include "strata/core/error.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

// Keras' Orthogonal (gain 1): the variable as a (rows, cols) matrix, rows the product of all
// axes but the last; Q of the QR decomposition of a (max, min) standard normal matrix, its
// columns' signs those of R's diagonal (Keras' "q *= sign(diag(r))", which makes Q unique),
// transposed when rows < cols. Gram-Schmidt yields that Q directly (R's diagonal positive);
// orthogonalizing twice keeps it orthogonal to double precision.
void fillOrthogonal(Tensor& t, Rng& rng)
{
    if (t.rank() < 2)
        throw ConfigError("", "the orthogonal initializer needs a variable of at least two dimensions, got shape " +
                                  t.shape().str());
    const int64_t cols = t.shape().back();
    const int64_t rows = t.numel() / cols;
    const int64_t m = std::max(rows, cols), n = std::min(rows, cols);
    std::vector<double> a(static_cast<size_t>(m * n)); // row-major (m, n), drawn as Keras does
    for (double& v : a)
        v = rng.normal();
    auto at = [&](int64_t i, int64_t j) -> double& { return a[static_cast<size_t>(i * n + j)]; };
    for (int64_t j = 0; j < n; ++j) {
        for (int pass = 0; pass < 2; ++pass)
            for (int64_t k = 0; k < j; ++k) {
                double dot = 0;
                for (int64_t i = 0; i < m; ++i)
                    dot += at(i, k) * at(i, j);
                for (int64_t i = 0; i < m; ++i)
                    at(i, j) -= dot * at(i, k);
            }
        double norm = 0;
        for (int64_t i = 0; i < m; ++i)
            norm += at(i, j) * at(i, j);
        norm = std::sqrt(norm);
        for (int64_t i = 0; i < m; ++i)
            at(i, j) = norm > 0 ? at(i, j) / norm : 0.0;
    }
    float* out = t.values().data();
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
            out[r * cols + c] = static_cast<float>(rows >= cols ? at(r, c) : at(c, r));
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
    else if (name == "orthogonal")
        fillOrthogonal(t, rng);
    else if (name == "normal")
        for (float& v : t.values())
            v = static_cast<float>(rng.normal() * 0.05);
    else
        throw ConfigError("", "unknown initializer \"" + name + "\"");
}

} // namespace strata::nn
