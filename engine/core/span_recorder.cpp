#include "strata/core/span_recorder.h"

#include <utility>

namespace strata {

const char* traceLaneName(TraceLane lane)
{
    switch (lane) {
    case TraceLane::Step: return "step";
    case TraceLane::Reduce: return "reduce";
    case TraceLane::Ps: return "ps";
    }
    return "step";
}

SpanRecorder::SpanRecorder(size_t capacityPerLane) : m_capacity(capacityPerLane)
{
    for (Lane& lane : m_lanes)
        lane.spans.reserve(m_capacity);
}

void SpanRecorder::add(TraceLane lane, const char* name, Clock::time_point begin, Clock::time_point end, int32_t index)
{
    Lane& l = m_lanes[static_cast<size_t>(lane)];
    std::lock_guard lock(l.mutex);
    if (l.spans.size() >= m_capacity) {
        ++l.dropped;
        return;
    }
    l.spans.push_back({name, index, begin, end});
}

size_t SpanRecorder::take(TraceLane lane, std::vector<Span>& into)
{
    Lane& l = m_lanes[static_cast<size_t>(lane)];
    into.clear();
    std::lock_guard lock(l.mutex);
    // Swapped, not copied: the lane keeps `into`'s reserved storage for the next step.
    if (into.capacity() < m_capacity)
        into.reserve(m_capacity);
    std::swap(into, l.spans);
    return std::exchange(l.dropped, 0);
}

} // namespace strata
