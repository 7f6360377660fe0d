#include "strata/nn/loss.h"

#include "cuda/ops.h"
#include "nn/math/loss_math.h"
#include "strata/core/error.h"

namespace strata::nn {

namespace {

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

[[noreturn]] void notAClassIndex(float label, int64_t classes)
{
    throw ShapeError("sparse_categorical_crossentropy: label " + std::to_string(label) +
                     " is not a class index of the model's " + std::to_string(classes) + " outputs");
}

// The loss's sum on a GPU (predictions, targets and gradient on the same device), through the
// same nn/math formulas as the CPU loops below.
double sumOnGpu(cuda::LossKind kind, bool logits, const Tensor& pred, const Tensor& target, Tensor* grad,
                float scale, float perExample)
{
    const Rows r = rowsOf(pred);
    const cuda::LossResult result = cuda::ops().lossSum(pred.device().index, kind, logits, pred.data(), target.data(),
                                                  r.count, r.width, grad ? grad->data() : nullptr, scale, perExample);
    if (result.badLabel)
        notAClassIndex(result.label, r.width);
    return result.sum;
}

class MeanSquaredError final : public Loss {
public:
    double compute(const Tensor& pred, const Tensor& target, Tensor* grad, float scale) const override
    {
        if (pred.numel() != target.numel())
            targetMismatch(name(), pred, target, "one target per output");
        const Rows r = rowsOf(pred);
        // Per example: mean over the last axis (and over any middle axes, as Keras' mean).
        const double perExample = static_cast<double>(r.count) / static_cast<double>(pred.dim(0)) * r.width;
        const auto perExampleF = static_cast<float>(perExample);
        if (!pred.device().isCpu())
            return sumOnGpu(cuda::LossKind::MeanSquaredError, false, pred, target, grad, scale, perExampleF) /
                   perExample;
        const float* p = pred.data();
        const float* t = target.data();
        float* g = grad ? grad->data() : nullptr;
        double sum = 0;
        for (int64_t i = 0; i < pred.numel(); ++i)
            sum += math::mseElement(p[i], t[i], g ? g + i : nullptr, scale, perExampleF);
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
        // Rows beyond the batch axis (e.g. per-timestep outputs) are averaged per example, so
        // each row's loss, and its gradient, counts batch / rows.
        const double rowWeight = static_cast<double>(pred.dim(0)) / static_cast<double>(r.count);
        const float rowScale = static_cast<float>(scale * rowWeight);
        if (!pred.device().isCpu())
            return sumOnGpu(cuda::LossKind::SparseCategoricalCrossentropy, m_logits, pred, target, grad, rowScale,
                            1.0f) *
                   rowWeight;
        const float* p = pred.data();
        const float* t = target.data();
        float* g = grad ? grad->data() : nullptr;
        double sum = 0;
        for (int64_t i = 0; i < r.count; ++i) {
            const float* row = p + i * r.width;
            if (!math::isClassIndex(t[i], r.width))
                notAClassIndex(t[i], r.width);
            const auto label = static_cast<int64_t>(t[i]);
            float* gr = g ? g + i * r.width : nullptr;
            sum += m_logits ? math::sparseCrossentropyLogitsRow(row, label, r.width, gr, rowScale)
                            : math::sparseCrossentropyProbsRow(row, label, r.width, gr, rowScale);
        }
        return sum * rowWeight;
    }
    const char* name() const override { return "sparse_categorical_crossentropy"; }
    bool fromLogits() const override { return m_logits; }

private:
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
        // Rows beyond the batch axis are averaged per example (see the sparse loss).
        const double rowWeight = static_cast<double>(pred.dim(0)) / static_cast<double>(r.count);
        const float rowScale = static_cast<float>(scale * rowWeight);
        if (!pred.device().isCpu())
            return sumOnGpu(cuda::LossKind::CategoricalCrossentropy, m_logits, pred, target, grad, rowScale,
                            1.0f) *
                   rowWeight;
        const float* p = pred.data();
        const float* t = target.data();
        float* g = grad ? grad->data() : nullptr;
        double sum = 0;
        for (int64_t i = 0; i < r.count; ++i)
            sum += math::categoricalCrossentropyRow(p + i * r.width, t + i * r.width, r.width, m_logits,
                                                    g ? g + i * r.width : nullptr, rowScale);
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
        // Per example: mean over the last axis.
        const float perExample = static_cast<float>(r.width) * static_cast<float>(r.count) / static_cast<float>(pred.dim(0));
        if (!pred.device().isCpu())
            return sumOnGpu(cuda::LossKind::BinaryCrossentropy, m_logits, pred, target, grad, scale, perExample) /
                   perExample;
        const float* p = pred.data();
        const float* t = target.data();
        float* g = grad ? grad->data() : nullptr;
        double sum = 0;
        for (int64_t i = 0; i < pred.numel(); ++i)
            sum += math::binaryCrossentropyElement(p[i], t[i], m_logits, g ? g + i : nullptr, scale, perExample);
        return sum / perExample;
    }
    const char* name() const override { return "binary_crossentropy"; }
    bool fromLogits() const override { return m_logits; }

private:
    bool m_logits;
};

} // namespace

std::unique_ptr<Loss> createLoss(const schema::LossSpec& spec, bool fromLogits)
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
