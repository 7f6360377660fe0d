#include "app/metrics/line_band.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::app {

void LineBand::extend(const std::vector<Member>& members)
{
    const double inf = std::numeric_limits<double>::infinity();
    // Up to where the members still reporting have all reached: a step computed before a
    // slower member's value arrived would be wrong, and never made again.
    double through = inf, anyLast = -inf;
    for (const Member& m : members) {
        const double last = m.series->empty() ? -inf : m.series->lastX();
        anyLast = std::max(anyLast, last);
        if (m.reporting)
            through = std::min(through, last);
    }
    if (through == inf)
        through = anyLast;
    const double done = m_median.empty() ? -inf : m_median.lastX();
    if (!(through > done))
        return;
    // Each member's next point, its x and the member's latest value before it, kept here: the
    // loop visits every member at every step, and a Series' accessors are calls.
    const size_t n = members.size();
    std::vector<int64_t> next(n), size(n);
    std::vector<double> nextX(n);
    std::vector<float> latest(n);
    const auto xAt = [&](size_t i) { return next[i] < size[i] ? members[i].series->x(next[i]) : inf; };
    for (size_t i = 0; i < n; ++i) {
        const Series& s = *members[i].series;
        const auto known = m_next.find(members[i].name);
        next[i] = known != m_next.end() ? known->second : s.lowerBound(std::nextafter(done, inf));
        size[i] = s.size();
        nextX[i] = xAt(i);
        latest[i] = next[i] > 0 ? s.y(next[i] - 1) : std::numeric_limits<float>::quiet_NaN();
    }
    for (;;) {
        // The next step any member reported.
        const double x = *std::min_element(nextX.begin(), nextX.end());
        if (!(x <= through))
            break;
        m_values.clear();
        for (size_t i = 0; i < n; ++i) {
            for (; nextX[i] <= x; nextX[i] = xAt(i))
                latest[i] = members[i].series->y(next[i]++);
            if (!std::isnan(latest[i]))
                m_values.push_back(latest[i]);
        }
        if (m_values.empty())
            continue;
        const auto [low, high] = std::minmax_element(m_values.begin(), m_values.end());
        m_low.append(x, *low);
        m_high.append(x, *high);
        // The middle value, or the mean of the two middle ones.
        const size_t half = m_values.size() / 2;
        std::nth_element(m_values.begin(), m_values.begin() + std::ptrdiff_t(half), m_values.end());
        double median = m_values[half];
        if (m_values.size() % 2 == 0)
            median = (median + *std::max_element(m_values.begin(), m_values.begin() + std::ptrdiff_t(half))) / 2;
        m_median.append(x, float(median));
    }
    for (size_t i = 0; i < members.size(); ++i)
        m_next[members[i].name] = next[i];
}

double recentMean(const Series& series)
{
    double sum = 0;
    int count = 0;
    for (int64_t i = std::max<int64_t>(0, series.size() - kRecentPoints); i < series.size(); ++i)
        if (const float y = series.y(i); !std::isnan(y)) {
            sum += double(y);
            ++count;
        }
    return count > 0 ? sum / count : std::numeric_limits<double>::quiet_NaN();
}

double recentOwnMs(const TaskData& task)
{
    if (!task.stepMs.empty()) {
        const double comm = recentMean(task.commMs);
        return recentMean(task.stepMs) - (std::isnan(comm) ? 0 : comm);
    }
    const double compute = recentMean(task.computeMs), input = recentMean(task.inputMs);
    return std::isnan(compute) ? compute : compute + (std::isnan(input) ? 0 : input);
}

std::vector<int> greatest(const std::vector<double>& scores, int count)
{
    std::vector<int> order;
    for (size_t i = 0; i < scores.size(); ++i)
        if (!std::isnan(scores[i]))
            order.push_back(int(i));
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return scores[size_t(a)] > scores[size_t(b)]; });
    order.resize(std::min(order.size(), size_t(std::max(count, 0))));
    return order;
}

} // namespace strata::app
