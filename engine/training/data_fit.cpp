#include "strata/training/data_fit.h"

#include "strata/core/error.h"

#include <algorithm>

namespace strata::run {

namespace {
std::vector<int64_t> withoutOnes(const Shape& s)
{
    std::vector<int64_t> dims;
    for (int64_t d : s.dims())
        if (d != 1)
            dims.push_back(d);
    return dims;
}
} // namespace

void adaptFeatures(data::Dataset& dataset, const Shape& modelInput, const std::string& split)
{
    const Shape& have = dataset.featureShape();
    if (have == modelInput)
        return;
    if (withoutOnes(have) == withoutOnes(modelInput)) {
        dataset.reshapeFeatures(modelInput);
        return;
    }
    throw ShapeError("the " + split + " examples (" + dataset.description() + ") have shape " + have.str() +
                     ", but the model's input_shape is " + modelInput.str());
}

TargetEncoder::TargetEncoder(const data::Dataset& dataset, const Shape& out, const schema::LossSpec& loss)
{
    const int64_t classes = dataset.numClasses();
    const int64_t outputs = out.back();
    const std::string labels = "the labels of " + dataset.description();
    const std::string model = "the model's output " + out.strWithBatch();
    if (loss.type == "sparse_categorical_crossentropy" || loss.type == "categorical_crossentropy") {
        if (classes == 0)
            throw ShapeError(loss.type + " needs class labels, but " + labels + " are real-valued targets");
        if (outputs < classes)
            throw ShapeError(model + " has " + std::to_string(outputs) + " values per example, but " + labels +
                             " have " + std::to_string(classes) + " classes");
        if (out.rank() != dataset.labelShape().rank() + 1)
            throw ShapeError(model + " does not fit " + labels + " of shape " + dataset.labelShape().str());
        if (loss.type == "categorical_crossentropy")
            m_oneHotClasses = outputs;
        return;
    }
    if (loss.type == "binary_crossentropy") {
        if (classes > 2)
            throw ShapeError("binary_crossentropy needs 0/1 labels, but " + labels + " have " +
                             std::to_string(classes) + " classes");
        if (out.numel() != std::max<int64_t>(dataset.labelShape().numel(), 1))
            throw ShapeError("binary_crossentropy needs one output per label; " + model + " does not fit " + labels +
                             " of shape " + dataset.labelShape().str());
        return;
    }
    // mse: one target per output.
    if (out.numel() != std::max<int64_t>(dataset.labelShape().numel(), 1))
        throw ShapeError("mse needs one target per output; " + model + " does not fit " + labels + " of shape " +
                         dataset.labelShape().str() +
                         (classes > 0 ? " (class labels: use sparse_categorical_crossentropy)" : ""));
}

const Tensor& TargetEncoder::encode(const Tensor& y)
{
    if (m_oneHotClasses == 0)
        return y;
    const int64_t n = y.numel();
    m_encoded.ensureShape({n, m_oneHotClasses});
    m_encoded.setZero();
    for (int64_t i = 0; i < n; ++i) {
        const int64_t label = static_cast<int64_t>(y.data()[i]);
        if (label >= 0 && label < m_oneHotClasses)
            m_encoded.data()[i * m_oneHotClasses + label] = 1.0f;
    }
    return m_encoded;
}

} // namespace strata::run
