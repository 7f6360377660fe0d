#include "strata/data/dataset.h"

#include "strata/core/error.h"

#include <algorithm>
#include <type_traits>

namespace strata::data {

Dataset::Dataset(std::string description, Shape featureShape, Features features, float scale, Shape labelShape,
                 std::vector<float> labels, int64_t numClasses)
    : m_description(std::move(description)), m_featureShape(std::move(featureShape)),
      m_features(std::move(features)), m_scale(scale), m_labelShape(std::move(labelShape)),
      m_labels(std::move(labels)), m_numClasses(numClasses), m_size(0)
{
    const int64_t featureNumel = m_featureShape.numel();
    const int64_t labelNumel = m_labelShape.numel();
    STRATA_CHECK(featureNumel > 0, "feature shape " + m_featureShape.str() + " is empty");
    STRATA_CHECK(labelNumel > 0, "label shape " + m_labelShape.str() + " is empty");
    STRATA_CHECK(numClasses >= 0, "negative class count");
    STRATA_CHECK(static_cast<int64_t>(m_labels.size()) % labelNumel == 0,
                 std::to_string(m_labels.size()) + " labels do not divide into " + m_labelShape.str());
    m_size = static_cast<int64_t>(m_labels.size()) / labelNumel;
    const auto featureCount = std::visit([](const auto& v) { return static_cast<int64_t>(v.size()); }, m_features);
    STRATA_CHECK(featureCount == m_size * featureNumel,
                 std::to_string(featureCount) + " feature values for " + std::to_string(m_size) + " examples of "
                     + m_featureShape.str());
}

size_t Dataset::storedBytes() const
{
    const size_t featureBytes =
        std::visit([](const auto& v) { return v.size() * sizeof(typename std::decay_t<decltype(v)>::value_type); },
                   m_features);
    return featureBytes + m_labels.size() * sizeof(float);
}

void Dataset::gather(std::span<const int64_t> indices, float* x, float* y) const
{
    const int64_t featureNumel = m_featureShape.numel();
    const int64_t labelNumel = m_labelShape.numel();
    for (int64_t index : indices)
        STRATA_CHECK(index >= 0 && index < m_size,
                     "example " + std::to_string(index) + " of " + std::to_string(m_size));

    std::visit(
        [&](const auto& values) {
            using T = typename std::decay_t<decltype(values)>::value_type;
            float* out = x;
            for (int64_t index : indices) {
                const T* in = values.data() + index * featureNumel;
                // Float data with unit scale is copied as is, so a regression target or
                // feature survives bit for bit.
                if constexpr (std::is_same_v<T, float>) {
                    if (m_scale == 1.0f) {
                        std::copy(in, in + featureNumel, out);
                        out += featureNumel;
                        continue;
                    }
                }
                for (int64_t i = 0; i < featureNumel; ++i)
                    out[i] = static_cast<float>(in[i]) * m_scale;
                out += featureNumel;
            }
        },
        m_features);

    for (int64_t index : indices) {
        const float* in = m_labels.data() + index * labelNumel;
        y = std::copy(in, in + labelNumel, y);
    }
}

void Dataset::truncate(int64_t n)
{
    if (n <= 0 || n >= m_size)
        return;
    const auto featureCount = static_cast<size_t>(n * m_featureShape.numel());
    std::visit(
        [&](auto& values) {
            values.resize(featureCount);
            values.shrink_to_fit(); // the point of a limit is to hold less
        },
        m_features);
    m_labels.resize(static_cast<size_t>(n * m_labelShape.numel()));
    m_labels.shrink_to_fit();
    m_size = n;
    // Files left without examples are no longer read.
    std::erase_if(m_fileStarts, [n](int64_t start) { return start >= n; });
}

void Dataset::setFileStarts(std::vector<int64_t> fileStarts)
{
    STRATA_CHECK(fileStarts.empty() || fileStarts.front() == 0, "the first file does not start at example 0");
    for (size_t f = 1; f < fileStarts.size(); ++f)
        STRATA_CHECK(fileStarts[f - 1] < fileStarts[f], "file " + std::to_string(f) + " holds no examples");
    STRATA_CHECK(fileStarts.empty() || fileStarts.back() < m_size,
                 "file " + std::to_string(fileStarts.size() - 1) + " starts after the last example");
    m_fileStarts = std::move(fileStarts);
}

int64_t Dataset::fileOf(int64_t index) const
{
    STRATA_CHECK(!m_fileStarts.empty(), m_description + " was not read from files");
    STRATA_CHECK(index >= 0 && index < m_size, "example " + std::to_string(index) + " of " + std::to_string(m_size));
    return std::upper_bound(m_fileStarts.begin(), m_fileStarts.end(), index) - m_fileStarts.begin() - 1;
}

void Dataset::reshapeFeatures(const Shape& shape)
{
    if (shape.numel() != m_featureShape.numel())
        throw ShapeError("cannot view examples of shape " + m_featureShape.str() + " as " + shape.str() + " ("
                         + std::to_string(m_featureShape.numel()) + " vs " + std::to_string(shape.numel())
                         + " values)");
    m_featureShape = shape;
}

} // namespace strata::data
