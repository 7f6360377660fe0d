#pragma once
// Dataset: examples held in memory in their stored type (uint8 pixels, int32 token ids,
// float values) and converted to float32 one batch at a time, so a 60,000-image dataset
// costs 47 MB instead of 188 MB.

#include "strata/core/shape.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace strata::data {

class Dataset {
public:
    using Features = std::variant<std::vector<uint8_t>, std::vector<int32_t>, std::vector<float>>;

    // `features` holds size * featureShape.numel() values; each is multiplied by `scale` when
    // converted (1/255 for normalized pixels). `labels` holds size * labelShape.numel() values
    // (class indices as floats for classification). `numClasses` is 0 for regression.
    Dataset(std::string description, Shape featureShape, Features features, float scale, Shape labelShape,
            std::vector<float> labels, int64_t numClasses);

    int64_t size() const { return m_size; }
    const Shape& featureShape() const { return m_featureShape; }
    const Shape& labelShape() const { return m_labelShape; }
    int64_t numClasses() const { return m_numClasses; }
    const std::string& description() const { return m_description; }
    // Bytes held for features and labels.
    size_t storedBytes() const;

    // Converts the examples at `indices` to float: `x` receives indices.size() *
    // featureShape().numel() values, `y` indices.size() * labelShape().numel().
    void gather(std::span<const int64_t> indices, float* x, float* y) const;

    // Keeps only the first `n` examples (no-op when n <= 0 or n >= size()).
    void truncate(int64_t n);
    // Views each example with another shape of the same size (e.g. (28, 28) as (28, 28, 1)).
    void reshapeFeatures(const Shape& shape);

    // The files the examples were read from, for FILE sharding: file f holds the examples
    // from fileStarts[f] to the next file's start (the last to size()). Loaders read files in
    // order, so one start per file keeps this compact. None: not read from files (synthetic).
    void setFileStarts(std::vector<int64_t> fileStarts);
    int64_t fileCount() const { return static_cast<int64_t>(m_fileStarts.size()); }
    // The file example `index` was read from (requires fileCount() > 0).
    int64_t fileOf(int64_t index) const;

private:
    std::string m_description;
    Shape m_featureShape;
    Features m_features;
    float m_scale;
    Shape m_labelShape;
    std::vector<float> m_labels;
    int64_t m_numClasses;
    int64_t m_size;
    std::vector<int64_t> m_fileStarts;
};

// The splits a data source provides. `test` may be null (a source without a test split).
struct DatasetSplits {
    std::shared_ptr<Dataset> train;
    std::shared_ptr<Dataset> test;
};

} // namespace strata::data
