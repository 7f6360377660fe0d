#pragma once
// Series' storage, shared by its sources (series.cpp: storing and the pyramid; series_decimate:
// reducing for drawing; series_smoothing: the smoothers' running state). Internal to them.

#include "app/metrics/series.h"

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace strata::app {

namespace series_parts {

// Points live in chunks of 4096: appending never moves stored points, and the first chunk
// grows by doubling so that the many short series of a run stay small.
constexpr int kChunkShift = 12;
constexpr int64_t kChunkSize = int64_t(1) << kChunkShift;
constexpr int64_t kChunkMask = kChunkSize - 1;
constexpr int64_t kFirstChunkCapacity = 64;

// Pyramid level 0 summarizes blocks of 16 points, level k blocks of 16 << k points.
constexpr int kBlockShift = 4;
constexpr int64_t kBlockSize = int64_t(1) << kBlockShift;

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

struct Chunk {
    std::vector<double> x;
    std::vector<float> y;
};

// Min and max of a block and where they are (offsets from the block's first point; kNone
// when the block holds only NaN). Ties go to the earlier point, so results do not depend
// on how a range is split.
struct Node {
    float min, max;
    uint32_t minAt, maxAt;
};

// The extremes of a range as absolute indices (-1: no finite value).
struct Extremes {
    float min = 0, max = 0;
    int64_t minAt = -1, maxAt = -1;

    void addMin(float v, int64_t at)
    {
        if (minAt < 0 || v < min || (v == min && at < minAt)) {
            min = v;
            minAt = at;
        }
    }
    void addMax(float v, int64_t at)
    {
        if (maxAt < 0 || v > max || (v == max && at < maxAt)) {
            max = v;
            maxAt = at;
        }
    }
};

} // namespace series_parts

struct Series::Impl {
    std::vector<series_parts::Chunk> chunks;
    int64_t size = 0;
    // levels[k] holds the whole blocks of 16 << k points so far; `filling` the block that is not.
    std::vector<std::vector<series_parts::Node>> levels;
    series_parts::Node filling{0, 0, series_parts::kNone, series_parts::kNone};

    // smoothEma's running state when this series is its output.
    struct Ema {
        bool valid = false;
        double weight = 0;
        int64_t done = 0; // input points consumed (== this series' size when valid)
        double last = 0;
        double weightPower = 1; // weight^(finite points so far)
    } ema;

    double x(int64_t i) const { return chunks[size_t(i >> series_parts::kChunkShift)].x[size_t(i & series_parts::kChunkMask)]; }
    float y(int64_t i) const { return chunks[size_t(i >> series_parts::kChunkShift)].y[size_t(i & series_parts::kChunkMask)]; }

    void addToPyramid(int64_t i, float v);
    void scan(int64_t begin, int64_t end, series_parts::Extremes& e) const;
    series_parts::Extremes extremes(int64_t begin, int64_t end) const;
    // Asks the cache for what reducing a range that starts or ends at `at` reads: the points
    // there and the pyramid's nodes around it on the levels below `levelsUsed`.
    void prefetch(int64_t at, size_t levelsUsed) const;
    void prefetchPoint(int64_t at) const
    {
        if (at < 0)
            return;
        const series_parts::Chunk& c = chunks[size_t(at >> series_parts::kChunkShift)];
        __builtin_prefetch(c.x.data() + (at & series_parts::kChunkMask));
        __builtin_prefetch(c.y.data() + (at & series_parts::kChunkMask));
    }
    // First index in [begin, end) whose x fails `inRange` (x is sorted, so it is monotone).
    template<typename Pred>
    int64_t partitionPoint(int64_t begin, int64_t end, Pred inRange) const;
    // The same, searching outwards from `guess` (a few probes when the guess is close).
    template<typename Pred>
    int64_t partitionPointNear(int64_t begin, int64_t end, int64_t guess, Pred inRange) const;
    std::vector<std::array<int64_t, 4>> pickColumns(int64_t from, int64_t end, double x0, double x1, int columns,
                                                    int64_t& lastColumn) const;
};

} // namespace strata::app
