// The smoothers over a Series: TensorBoard's debiased EMA and a moving average, incremental.
#include "app/metrics/series.h"
#include "app/metrics/series_impl.h"

#include <algorithm>
#include <cmath>

namespace strata::app {

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
        // Past 1e-20, 1 - weightPower is 1 exactly: stopping there keeps the power from sinking
        // into subnormal numbers, where it stays (the smallest times a weight >= 0.5 rounds back
        // to it) and each multiplication costs ~100 cycles, most of a live plot's refresh.
        state.weightPower = state.weightPower < 1e-20 ? 0 : state.weightPower * weight;
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
