// Series: reducing a range of points for drawing, one min and max per pixel column.
#include "app/metrics/series.h"
#include "app/metrics/series_impl.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace strata::app {

using namespace series_parts;

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

void Series::decimate(double x0, double x1, int columns, QVector<QPointF>& out) const
{
    Reduction reduction;
    reduction.points = std::move(out); // its capacity
    decimate(x0, x1, columns, reduction);
    out = std::move(reduction.points);
}

// decimate()'s pass over the points [from, end) of [x0, x1]: per pixel column holding points,
// its first, min, max and last point (-1: none); `lastColumn` set to where the last one begins.
std::vector<std::array<int64_t, 4>> Series::Impl::pickColumns(int64_t from, int64_t end, double x0, double x1,
                                                              int columns, int64_t& lastColumn) const
{
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
    const double lastX = end > from ? x(end - 1) : x1;
    const double perColumn = double(end - from) / double(columns) * (x1 > x0 ? (lastX - x(std::min(from, size - 1))) / (x1 - x0) : 1);
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
        const double xi = x(i);
        const int64_t column = columnOf(xi);
        int64_t guess = end;
        if (!oneColumn && lastX > xi) {
            guess = guessAt(i, xi, x0 + double(column + 1) / scale);
            if (perColumn >= 2 * kBlockSize)
                prefetch(guessAt(i, xi, x0 + double(column + kAhead) / scale), levelsUsed);
        }
        const int64_t next = partitionPointNear(i + 1, end, guess, [&](double x) { return columnOf(x) <= column; });
        if (next - i == 1) {
            picked.push_back({i, -1, -1, -1});
        } else {
            const Extremes e = extremes(i, next);
            // Their points are read once every column is reduced: asked for now, they arrive meanwhile.
            prefetchPoint(e.minAt);
            prefetchPoint(e.maxAt);
            picked.push_back({i, e.minAt, e.maxAt, next - 1});
        }
        lastColumn = i;
        i = next;
    }
    return picked;
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

    std::vector<std::array<int64_t, 4>> picked = d->pickColumns(from, end, x0, x1, columns, r.lastColumn);
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

} // namespace strata::app
