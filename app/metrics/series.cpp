#include "app/metrics/series.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace strata::app {

namespace {

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

struct Series::Impl {
    std::vector<Chunk> chunks;
    int64_t size = 0;
    std::vector<std::vector<Node>> levels;

    // smoothEma's running state when this series is its output.
    struct Ema {
        bool valid = false;
        double weight = 0;
        int64_t done = 0; // input points consumed (== this series' size when valid)
        double last = 0;
        double weightPower = 1; // weight^(finite points so far)
    } ema;

    double x(int64_t i) const { return chunks[size_t(i >> kChunkShift)].x[size_t(i & kChunkMask)]; }
    float y(int64_t i) const { return chunks[size_t(i >> kChunkShift)].y[size_t(i & kChunkMask)]; }

    void addToPyramid(int64_t i, float v);
    void scan(int64_t begin, int64_t end, Extremes& e) const;
    Extremes extremes(int64_t begin, int64_t end) const;
    // Asks the cache for what reducing a range that starts or ends at `at` reads: the points
    // there and the pyramid's nodes around it on the levels below `levelsUsed`.
    void prefetch(int64_t at, size_t levelsUsed) const;
    void prefetchPoint(int64_t at) const
    {
        if (at < 0)
            return;
        const Chunk& c = chunks[size_t(at >> kChunkShift)];
        __builtin_prefetch(c.x.data() + (at & kChunkMask));
        __builtin_prefetch(c.y.data() + (at & kChunkMask));
    }
    // First index in [begin, end) whose x fails `inRange` (x is sorted, so it is monotone).
    template<typename Pred>
    int64_t partitionPoint(int64_t begin, int64_t end, Pred inRange) const;
    // The same, searching outwards from `guess` (a few probes when the guess is close).
    template<typename Pred>
    int64_t partitionPointNear(int64_t begin, int64_t end, int64_t guess, Pred inRange) const;
};

void Series::Impl::addToPyramid(int64_t i, float v)
{
    const bool finite = !std::isnan(v);
    if (levels.empty())
        levels.emplace_back();
    for (size_t k = 0;; ++k) {
        if (k == levels.size()) {
            // Level k-1 just got its second node: the new level starts with their union.
            const auto& below = levels[k - 1];
            const Node top = merged(below[0], below[1], uint32_t(kBlockSize << (k - 1)));
            levels.emplace_back(1, top);
            return;
        }
        auto& level = levels[k];
        const int shift = kBlockShift + int(k);
        const auto index = size_t(i >> shift);
        const auto offset = uint32_t(i - (int64_t(index) << shift));
        if (index == level.size()) {
            level.push_back(finite ? Node{v, v, offset, offset} : Node{0, 0, kNone, kNone});
            if (level.size() == 1)
                return; // the very first point
            continue;
        }
        if (!finite)
            return;
        Node& n = level[index];
        bool changed = false;
        if (n.minAt == kNone || v < n.min) {
            n.min = v;
            n.minAt = offset;
            changed = true;
        }
        if (n.maxAt == kNone || v > n.max) {
            n.max = v;
            n.maxAt = offset;
            changed = true;
        }
        // A node unchanged means every node above it is unchanged too (they cover it).
        if (!changed || k + 1 == levels.size())
            return;
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

void Series::Impl::prefetch(int64_t at, size_t levelsUsed) const
{
    if (at <= 0 || at >= size)
        return;
    const Chunk& c = chunks[size_t(at >> kChunkShift)];
    const auto offset = size_t(at & kChunkMask);
    __builtin_prefetch(c.x.data() + offset - 1); // the column end's probe reads x(at - 1) and x(at)
    __builtin_prefetch(c.y.data() + offset - std::min<size_t>(offset, kBlockSize)); // the partial blocks
    __builtin_prefetch(c.y.data() + offset);
    for (size_t k = 0; k < std::min(levelsUsed, levels.size()); ++k) {
        const auto node = size_t(at >> (kBlockShift + int(k)));
        if (node < levels[k].size())
            __builtin_prefetch(levels[k].data() + node);
    }
}

template<typename Pred>
int64_t Series::Impl::partitionPoint(int64_t begin, int64_t end, Pred inRange) const
{
    // Gallop first: a pixel column usually ends close to where it starts.
    int64_t step = 1;
    int64_t lo = begin;
    while (lo < end) {
        const int64_t probe = std::min(end, lo + step) - 1;
        if (!inRange(x(probe))) {
            end = probe;
            break;
        }
        lo = probe + 1;
        step *= 2;
    }
    while (lo < end) {
        const int64_t mid = lo + (end - lo) / 2;
        if (inRange(x(mid)))
            lo = mid + 1;
        else
            end = mid;
    }
    return lo;
}

template<typename Pred>
int64_t Series::Impl::partitionPointNear(int64_t begin, int64_t end, int64_t guess, Pred inRange) const
{
    guess = std::clamp(guess, begin, end);
    if (guess == begin || inRange(x(guess - 1)))
        return partitionPoint(guess, end, inRange);
    // The answer lies before the guess: gallop backwards to a point in range, then bisect.
    int64_t hi = guess - 1; // x(hi) is out of range
    int64_t lo = begin;
    for (int64_t step = 1; hi > begin; step *= 2) {
        const int64_t probe = std::max(begin, hi - step);
        if (inRange(x(probe))) {
            lo = probe + 1;
            break;
        }
        hi = probe;
    }
    return partitionPoint(lo, hi, inRange);
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

void Series::decimate(double x0, double x1, int columns, QVector<QPointF>& out) const
{
    Reduction reduction;
    reduction.points = std::move(out); // its capacity
    decimate(x0, x1, columns, reduction);
    out = std::move(reduction.points);
}

bool Series::decimate(double x0, double x1, int columns, Reduction& r) const
{
    const int64_t n = d->size;
    columns = std::max(columns, 1);
    // The same bounded view of a series that only grew since: its columns up to the last one
    // reduced stay as they are.
    const bool grown = r.size >= 0 && r.size <= n && r.x0 == x0 && r.x1 == x1 && r.columns == columns &&
                       std::isfinite(x0) && std::isfinite(x1);
    if (grown && r.size == n)
        return false;
    QVector<QPointF>& out = r.points;
    r.x0 = x0;
    r.x1 = x1;
    r.columns = columns;
    r.size = n;
    if (n == 0 || std::isnan(x0) || std::isnan(x1) || x1 < x0) {
        out.clear();
        r.size = -1;
        return true;
    }
    // An unbounded view means "all of it".
    if (!std::isfinite(x0))
        x0 = std::min(d->x(0), x1);
    if (!std::isfinite(x1))
        x1 = std::max(lastX(), x0);

    const auto point = [this](int64_t i) { return QPointF(d->x(i), double(d->y(i))); };
    int64_t from = 0;
    if (grown) {
        out.resize(r.kept); // the last column (it may hold more points now) and what followed it
        from = r.lastColumn;
    } else {
        out.clear();
        from = lowerBound(x0);
        if (from > 0)
            out.append(point(from - 1));
        r.kept = out.size();
        r.lastColumn = from;
    }
    const int64_t end = d->partitionPoint(from, n, [x1](double x) { return x <= x1; });

    const double scale = double(columns) / (x1 - x0);
    const bool oneColumn = !(x1 > x0) || !std::isfinite(scale);
    // The column of x; monotone in x, so every column is a contiguous run of points.
    const auto columnOf = [=](double x) -> int64_t {
        if (oneColumn)
            return 0;
        const double c = std::floor((x - x0) * scale);
        return c <= 0 ? 0 : c >= double(columns - 1) ? columns - 1 : int64_t(c);
    };
    // Where a column ends is guessed by interpolating x between here and the range's end
    // (exact for evenly spaced steps), so finding it touches a cache line or two, not ~20.
    // The same guess a few columns ahead tells what those columns will read: asked for now,
    // their cache misses (a long run's points are not in the cache) overlap this column's
    // instead of following them (bench/README.md, "Dashboard").
    const double lastX = end > from ? d->x(end - 1) : x1;
    const double perColumn = double(end - from) / double(columns) * (x1 > x0 ? (lastX - d->x(std::min(from, n - 1))) / (x1 - x0) : 1);
    size_t levelsUsed = 0; // levels whose blocks fit in a column
    while (levelsUsed < 32 && double(kBlockSize << levelsUsed) <= perColumn)
        ++levelsUsed;
    const auto guessAt = [&](int64_t i, double xi, double columnStart) {
        return i + int64_t(std::ceil((columnStart - xi) / (lastX - xi) * double(end - 1 - i)));
    };
    constexpr int kAhead = 8; // columns
    std::vector<std::array<int64_t, 4>> picked; // per column holding points: first, min, max, last (-1: none)
    picked.reserve(size_t(std::min<int64_t>(columns, end - from)));
    for (int64_t i = from; i < end;) {
        const double xi = d->x(i);
        const int64_t column = columnOf(xi);
        int64_t guess = end;
        if (!oneColumn && lastX > xi) {
            guess = guessAt(i, xi, x0 + double(column + 1) / scale);
            if (perColumn >= 2 * kBlockSize)
                d->prefetch(guessAt(i, xi, x0 + double(column + kAhead) / scale), levelsUsed);
        }
        const int64_t next = d->partitionPointNear(i + 1, end, guess, [&](double x) { return columnOf(x) <= column; });
        if (next - i == 1) {
            picked.push_back({i, -1, -1, -1});
        } else {
            const Extremes e = d->extremes(i, next);
            // Their points are read once every column is reduced: asked for now, they arrive meanwhile.
            d->prefetchPoint(e.minAt);
            d->prefetchPoint(e.maxAt);
            picked.push_back({i, e.minAt, e.maxAt, next - 1});
        }
        r.lastColumn = i;
        i = next;
    }
    for (std::array<int64_t, 4>& at : picked) {
        r.kept = out.size(); // ends before the last column's points
        std::sort(at.begin(), at.end());
        int64_t previous = -1;
        for (const int64_t index : at) {
            if (index < 0 || index == previous)
                continue;
            out.append(point(index));
            previous = index;
        }
    }
    if (end < n)
        out.append(point(end));
    return true;
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

void smoothEma(const Series& in, double weight, Series& out)
{
    // weight 1 would never move from the first value and divide by zero in the debiasing.
    weight = std::clamp(weight, 0.0, 0.999999);
    const int64_t start = out.size();
    const int64_t n = in.size();
    if (start >= n)
        return;
    auto& state = out.d->ema;
    const auto step = [&](float v) -> float {
        if (!std::isfinite(v))
            return v;
        state.last = state.last * weight + (1 - weight) * double(v);
        state.weightPower *= weight;
        return float(state.last / (1 - state.weightPower));
    };
    if (!state.valid || state.weight != weight || state.done != start) {
        // `out` was not made by this function with this weight: replay the input so far.
        state = {};
        for (int64_t i = 0; i < start; ++i)
            step(in.y(i));
    }
    for (int64_t i = start; i < n; ++i)
        out.append(in.x(i), step(in.y(i)));
    state.valid = true;
    state.weight = weight;
    state.done = n;
}

void smoothMovingAverage(const Series& in, int window, Series& out)
{
    window = std::max(window, 1);
    const int64_t start = out.size();
    const int64_t n = in.size();
    if (start >= n)
        return;
    // Running sum of the finite values in (i - window, i]. Recomputed exactly at every
    // multiple of `window`, so rounding drift never spans more than one window, and the
    // result at every index is the same however the calls were split.
    double sum = 0;
    int64_t count = 0;
    const auto advance = [&](int64_t i) {
        if (i % window == 0) {
            sum = 0;
            count = 0;
            for (int64_t j = std::max<int64_t>(0, i - window + 1); j <= i; ++j) {
                const float v = in.y(j);
                if (std::isfinite(v)) {
                    sum += double(v);
                    ++count;
                }
            }
            return;
        }
        const float v = in.y(i);
        if (std::isfinite(v)) {
            sum += double(v);
            ++count;
        }
        if (i >= window) {
            const float old = in.y(i - window);
            if (std::isfinite(old)) {
                sum -= double(old);
                --count;
            }
        }
    };
    if (start > 0) {
        const int64_t previous = start - 1;
        for (int64_t i = previous - previous % window; i <= previous; ++i)
            advance(i);
    }
    for (int64_t i = start; i < n; ++i) {
        advance(i);
        const float v = in.y(i);
        out.append(in.x(i), std::isfinite(v) && count > 0 ? float(sum / double(count)) : v);
    }
}

} // namespace strata::app
