#include "strata/nn/loss.h"

#include "strata/core/error.h"

#include <algorithm>
#include <cmath>

namespace strata::nn {

namespace {

// Keras' backend epsilon: probabilities are clipped to [eps, 1 - eps] before the log.
constexpr float kEpsilon = 1e-7f;

// Rows of the last axis: classes per row and how many rows a prediction has.
struct Rows {
    int64_t count;
    int64_t width;
};
Rows rowsOf(const Tensor& pred)
{
    const int64_t width = pred.shape().back();
    return {pred.numel() / width, width};
}

[[noreturn]] void targetMismatch(const char* loss, const Tensor& pred, const Tensor& target, const char* expected)
{
    throw ShapeError(std::string(loss) + ": predictions " + pred.shape().str() + " and targets " +
                     target.shape().str() + " do not fit (" + expected + ")");
}

class MeanSquaredError final : public Loss {
public:
    double compute(const Tensor& pred, const Tensor& target, Tensor* grad, float scale) const override
    {
        if (pred.numel() != target.numel())
            targetMismatch(name(), pred, target, "one target per output");
        const Rows r = rowsOf(pred);
        const int64_t batch = pred.dim(0);
        const float* p = pred.data();
        const float* t = target.data();
        float* g = grad ? grad->data() : nullptr;
        // Per example: mean over the last axis (and over any middle axes, as Keras' mean).
        const double perExample = static_cast<double>(r.count) / static_cast<double>(batch) * r.width;
        double sum = 0;
        for (int64_t i = 0; i < pred.numel(); ++i) {
            const float d = p[i] - t[i];
            sum += static_cast<double>(d) * d;
            if (g)
                g[i] = scale * 2.0f * d / static_cast<float>(perExample);
        }
        return sum / perExample;
    }
    const char* name() const override { return "mse"; }
};

class SparseCategoricalCrossentropy final : public Loss {
public:
    explicit SparseCategoricalCrossentropy(bool logits) : m_logits(logits) {}

    double compute(const Tensor& pred, const Tensor& target, Tensor* grad, float scale) const override
    {
        const Rows r = rowsOf(pred);
        if (target.numel() != r.count)
            targetMismatch(name(), pred, target, "one class index per prediction row");
        const float* p = pred.data();
        const float* t = target.data();
        float* g = grad ? grad->data() : nullptr;
        // Rows beyond the batch axis (e.g. per-timestep outputs) are averaged per example, so
        // each row's loss, and its gradient, counts batch / rows.
        const double rowWeight = static_cast<double>(pred.dim(0)) / static_cast<double>(r.count);
        const float rowScale = static_cast<float>(scale * rowWeight);
        double sum = 0;
        for (int64_t i = 0; i < r.count; ++i) {
            const float* row = p + i * r.width;
            const int64_t label = checkedLabel(t[i], r.width);
            float* gr = g ? g + i * r.width : nullptr;
            sum += m_logits ? fromLogitsRow(row, label, r.width, gr, rowScale)
                            : fromProbsRow(row, label, r.width, gr, rowScale);
        }
        return sum * rowWeight;
    }
    const char* name() const override { return "sparse_categorical_crossentropy"; }
    bool fromLogits() const override { return m_logits; }

private:
    static int64_t checkedLabel(float v, int64_t classes)
    {
        if (!(v >= 0) || v >= static_cast<float>(classes) || v != std::floor(v))
            throw ShapeError("sparse_categorical_crossentropy: label " + std::to_string(v) +
                             " is not a class index of the model's " + std::to_string(classes) + " outputs");
        return static_cast<int64_t>(v);
    }

    static double fromLogitsRow(const float* z, int64_t label, int64_t n, float* g, float scale)
    {
        const float m = *std::max_element(z, z + n);
        double s = 0;
        for (int64_t j = 0; j < n; ++j)
            s += std::exp(static_cast<double>(z[j] - m));
        const double lse = std::log(s) + m;
        if (g) {
            const double inv = 1.0 / s;
            for (int64_t j = 0; j < n; ++j)
                g[j] = scale * static_cast<float>(std::exp(static_cast<double>(z[j] - m)) * inv);
            g[label] -= scale;
        }
        return lse - z[label];
    }

    // Keras (TF backend) on probabilities: clip, then softmax cross-entropy of log(p),
    // i.e. -log(p_y / sum p) with p clipped to [eps, 1 - eps].
    static double fromProbsRow(const float* p, int64_t label, int64_t n, float* g, float scale)
    {
        double s = 0;
        for (int64_t j = 0; j < n; ++j)
            s += std::clamp(p[j], kEpsilon, 1.0f - kEpsilon);
        const float py = std::clamp(p[label], kEpsilon, 1.0f - kEpsilon);
        if (g) {
            for (int64_t j = 0; j < n; ++j) {
                const bool inside = p[j] > kEpsilon && p[j] < 1.0f - kEpsilon;
                double d = 1.0 / s - (j == label ? 1.0 / py : 0.0);
                g[j] = inside ? scale * static_cast<float>(d) : 0.0f;
            }
        }
        return -std::log(py / s);
    }

    bool m_logits;
};

class CategoricalCrossentropy final : public Loss {
public:
    explicit CategoricalCrossentropy(bool logits) : m_logits(logits) {}

    double compute(const Tensor& pred, const Tensor& target, Tensor* grad, float scale) const override
    {
        if (pred.shape() != target.shape())
            targetMismatch(name(), pred, target, "one-hot targets shaped like the predictions");
        const Rows r = rowsOf(pred);
        const float* p = pred.data();
        const float* t = target.data();
        float* g = grad ? grad->data() : nullptr;
        // Rows beyond the batch axis are averaged per example (see the sparse loss).
        const double rowWeight = static_cast<double>(pred.dim(0)) / static_cast<double>(r.count);
        const float rowScale = static_cast<float>(scale * rowWeight);
        double sum = 0;
        for (int64_t i = 0; i < r.count; ++i) {
            const float* z = p + i * r.width;
            const float* y = t + i * r.width;
            float* gr = g ? g + i * r.width : nullptr;
            double tsum = 0;
            for (int64_t j = 0; j < r.width; ++j)
                tsum += y[j];
            if (m_logits) {
                const float m = *std::max_element(z, z + r.width);
                double s = 0;
                for (int64_t j = 0; j < r.width; ++j)
                    s += std::exp(static_cast<double>(z[j] - m));
                const double lse = std::log(s) + m;
                for (int64_t j = 0; j < r.width; ++j) {
                    sum += y[j] * (lse - z[j]);
                    if (gr)
                        gr[j] = rowScale * static_cast<float>(std::exp(z[j] - m) / s * tsum - y[j]);
                }
            } else {
                // Keras: q = p / sum(p), clipped to [eps, 1 - eps], then -sum(y log q).
                // d/dz_k = -y_k / z_k + (sum of y_j over unclipped j) / s, clipped terms giving 0.
                double s = 0;
                for (int64_t j = 0; j < r.width; ++j)
                    s += z[j];
                double insideY = 0;
                for (int64_t j = 0; j < r.width; ++j) {
                    const double q = z[j] / s;
                    sum -= y[j] * std::log(std::clamp(q, double(kEpsilon), 1.0 - kEpsilon));
                    if (q > kEpsilon && q < 1.0 - kEpsilon)
                        insideY += y[j];
                }
                if (gr) {
                    for (int64_t j = 0; j < r.width; ++j) {
                        const double q = z[j] / s;
                        const bool inside = q > kEpsilon && q < 1.0 - kEpsilon;
                        gr[j] = rowScale * static_cast<float>((inside ? -y[j] / z[j] : 0.0) + insideY / s);
                    }
                }
            }
        }
        return sum * rowWeight;
    }
    const char* name() const override { return "categorical_crossentropy"; }
    bool fromLogits() const override { return m_logits; }

private:
    bool m_logits;
};

class BinaryCrossentropy final : public Loss {
public:
    explicit BinaryCrossentropy(bool logits) : m_logits(logits) {}

    double compute(const Tensor& pred, const Tensor& target, Tensor* grad, float scale) const override
    {
        if (pred.numel() != target.numel())
            targetMismatch(name(), pred, target, "one 0/1 target per output");
        const Rows r = rowsOf(pred);
        const float* p = pred.data();
        const float* t = target.data();
        float* g = grad ? grad->data() : nullptr;
        // Per example: mean over the last axis.
        const float perExample = static_cast<float>(r.width) * static_cast<float>(r.count) / static_cast<float>(pred.dim(0));
        double sum = 0;
        for (int64_t i = 0; i < pred.numel(); ++i) {
            const float z = p[i], y = t[i];
            if (m_logits) {
                // max(z, 0) - z y + log(1 + exp(-|z|)): stable for any z.
                sum += std::max(z, 0.0f) - z * y + std::log1p(std::exp(-std::fabs(z)));
                if (g) {
                    const float s = z >= 0 ? 1.0f / (1.0f + std::exp(-z)) : std::exp(z) / (1.0f + std::exp(z));
                    g[i] = scale * (s - y) / perExample;
                }
            } else {
                const float q = std::clamp(z, kEpsilon, 1.0f - kEpsilon);
                sum -= y * std::log(q) + (1.0f - y) * std::log(1.0f - q);
                if (g) {
                    const bool inside = z > kEpsilon && z < 1.0f - kEpsilon;
                    g[i] = inside ? scale * (q - y) / (q * (1.0f - q)) / perExample : 0.0f;
                }
            }
        }
        return sum / perExample;
    }
    const char* name() const override { return "binary_crossentropy"; }
    bool fromLogits() const override { return m_logits; }

private:
    bool m_logits;
};

} // namespace

std::unique_ptr<Loss> createLoss(const spec::LossSpec& spec, bool fromLogits)
{
    if (spec.type == "mse")
        return std::make_unique<MeanSquaredError>();
    if (spec.type == "sparse_categorical_crossentropy")
        return std::make_unique<SparseCategoricalCrossentropy>(fromLogits);
    if (spec.type == "categorical_crossentropy")
        return std::make_unique<CategoricalCrossentropy>(fromLogits);
    if (spec.type == "binary_crossentropy")
        return std::make_unique<BinaryCrossentropy>(fromLogits);
    throw ConfigError("training.loss.type", "unknown loss \"" + spec.type + "\"");
}

} // namespace strata::nn
