#pragma once
// A dataset whose batches show which examples they hold, for the pipeline and shard tests.

#include "strata/data/pipeline.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace testing {

// Example i has features (10 i, 10 i + 1) and label i. `fileStarts` as a loader records
// them (none: not read from files).
inline std::shared_ptr<strata::data::Dataset> numbered(int64_t n, std::vector<int64_t> fileStarts = {})
{
    std::vector<float> x, y;
    for (int64_t i = 0; i < n; ++i) {
        x.push_back(float(10 * i));
        x.push_back(float(10 * i + 1));
        y.push_back(float(i));
    }
    auto d = std::make_shared<strata::data::Dataset>("numbered", strata::Shape{2}, std::move(x), 1.0f, strata::Shape{},
                                                     std::move(y), 0);
    d->setFileStarts(std::move(fileStarts));
    return d;
}

inline std::vector<int64_t> range(int64_t from, int64_t to)
{
    std::vector<int64_t> out;
    for (int64_t i = from; i < to; ++i)
        out.push_back(i);
    return out;
}

// The examples in a batch, checking that x matches y.
inline std::vector<int64_t> examples(const strata::data::Batch& b)
{
    std::vector<int64_t> out;
    for (int64_t i = 0; i < b.size(); ++i) {
        const auto id = int64_t(b.y.data()[i]);
        if (b.x.data()[2 * i] != float(10 * id) || b.x.data()[2 * i + 1] != float(10 * id + 1))
            throw std::runtime_error("features do not match label " + std::to_string(id));
        out.push_back(id);
    }
    return out;
}

} // namespace testing
