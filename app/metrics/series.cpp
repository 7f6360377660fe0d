// Series: storing points in chunks and the min/max pyramid over them. Reducing a range for
// drawing: series_decimate.cpp; smoothing: series_smoothing.cpp.
#include "app/metrics/series.h"
#include "app/metrics/series_impl.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::app {

using namespace series_parts;

namespace {

Node merged(const Node& a, const Node& b, uint32_t bOffset)
{
    Node n = a;
    if (b.minAt != kNone && (n.minAt == kNone || b.min < n.min)) {
        n.min = b.min;
        n.minAt = b.minAt + bOffset;
    }
    if (b.maxAt != kNone && (n.maxAt == kNone || b.max > n.max)) {
        n.max = b.max;
        n.maxAt = b.maxAt + bOffset;
    }
    return n;
}

} // namespace

void Series::Impl::addToPyramid(int64_t i, float v)
{
    // Only whole blocks are read (extremes() scans the points of a partial one), so a point
    // only updates its block's running summary, and a block climbs the levels once complete:
    // a constant cost per point, where updating every level at once cost one per level for
    // each new extreme (a falling loss sets one at every step).
    const auto offset = uint32_t(i & (kBlockSize - 1));
    if (offset == 0)
        filling = {0, 0, kNone, kNone};
    if (!std::isnan(v)) {
        if (filling.minAt == kNone || v < filling.min) {
            filling.min = v;
            filling.minAt = offset;
        }
        if (filling.maxAt == kNone || v > filling.max) {
            filling.max = v;
            filling.maxAt = offset;
        }
    }
    if (offset != kBlockSize - 1)
        return;
    if (levels.empty())
        levels.emplace_back();
    levels[0].push_back(filling);
    // Each level's node completes with its second half.
    for (size_t k = 0; levels[k].size() % 2 == 0; ++k) {
        const auto& below = levels[k];
        const Node top = merged(below[below.size() - 2], below.back(), uint32_t(kBlockSize << k));
        if (k + 1 == levels.size())
            levels.emplace_back();
        levels[k + 1].push_back(top);
    }
}

void Series::Impl::scan(int64_t begin, int64_t end, Extremes& e) const
{
    while (begin < end) {
        const Chunk& c = chunks[size_t(begin >> kChunkShift)];
        const int64_t base = begin & ~kChunkMask;
        const int64_t stop = std::min(end, base + kChunkSize);
        const float* ys = c.y.data();
        for (int64_t i = begin; i < stop; ++i) {
            const float v = ys[i - base];
            if (std::isnan(v))
                continue;
            e.addMin(v, i);
            e.addMax(v, i);
        }
        begin = stop;
    }
}

Extremes Series::Impl::extremes(int64_t begin, int64_t end) const
{
    Extremes e;
    int64_t lo = (begin + kBlockSize - 1) >> kBlockShift; // first whole block
    int64_t hi = end >> kBlockShift;                      // one past the last whole block
    if (lo >= hi) {
        scan(begin, end, e);
        return e;
    }
    scan(begin, lo << kBlockShift, e);
    scan(hi << kBlockShift, end, e);
    // Bottom-up over the whole blocks: every node taken lies inside [lo, hi).
    for (size_t k = 0; lo < hi; ++k, lo >>= 1, hi >>= 1) {
        const int shift = kBlockShift + int(k);
        const auto take = [&](int64_t index) {
            const Node& n = levels[k][size_t(index)];
            const int64_t start = index << shift;
            if (n.minAt != kNone)
                e.addMin(n.min, start + n.minAt);
            if (n.maxAt != kNone)
                e.addMax(n.max, start + n.maxAt);
        };
        if (lo & 1)
            take(lo++);
        if (hi & 1)
            take(--hi);
    }
    return e;
}

Series::Series() : d(std::make_unique<Impl>()) {}
Series::~Series() = default;
Series::Series(Series&&) noexcept = default;
Series& Series::operator=(Series&&) noexcept = default;

void Series::append(double x, float y)
{
    if (d->size > 0 && !(x >= lastX()))
        x = lastX(); // keeps the order (NaN included) that lowerBound and decimate rely on
    else if (std::isnan(x))
        x = 0;
    if (d->chunks.empty() || d->chunks.back().x.size() == size_t(kChunkSize)) {
        d->chunks.emplace_back();
        const auto capacity = size_t(d->chunks.size() == 1 ? kFirstChunkCapacity : kChunkSize);
        d->chunks.back().x.reserve(capacity);
        d->chunks.back().y.reserve(capacity);
    }
    Chunk& c = d->chunks.back();
    c.x.push_back(x);
    c.y.push_back(y);
    d->addToPyramid(d->size, y);
    ++d->size;
}

int64_t Series::size() const
{
    return d->size;
}

double Series::x(int64_t i) const
{
    return d->x(i);
}

float Series::y(int64_t i) const
{
    return d->y(i);
}

double Series::lastX() const
{
    return d->chunks.back().x.back();
}

float Series::lastY() const
{
    return d->chunks.back().y.back();
}

int64_t Series::lowerBound(double value) const
{
    const auto& chunks = d->chunks;
    const auto chunk = std::partition_point(chunks.begin(), chunks.end(),
                                            [&](const Chunk& c) { return c.x.back() < value; });
    if (chunk == chunks.end())
        return d->size;
    const auto at = std::lower_bound(chunk->x.begin(), chunk->x.end(), value);
    return (int64_t(chunk - chunks.begin()) << kChunkShift) + (at - chunk->x.begin());
}

std::pair<float, float> Series::yRange(int64_t begin, int64_t end) const
{
    begin = std::max<int64_t>(begin, 0);
    end = std::min(end, d->size);
    if (begin >= end)
        return {0.0f, 0.0f};
    const Extremes e = d->extremes(begin, end);
    if (e.minAt < 0) {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        return {nan, nan};
    }
    return {e.min, e.max};
}

size_t Series::memoryBytes() const
{
    size_t bytes = sizeof(Series) + sizeof(Impl) + d->chunks.capacity() * sizeof(Chunk);
    for (const Chunk& c : d->chunks)
        bytes += c.x.capacity() * sizeof(double) + c.y.capacity() * sizeof(float);
    bytes += d->levels.capacity() * sizeof(std::vector<Node>);
    for (const auto& level : d->levels)
        bytes += level.capacity() * sizeof(Node);
    return bytes;
}

} // namespace strata::app
