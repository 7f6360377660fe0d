#include "strata/report/step_trace.h"

#include <algorithm>
#include <charconv>

namespace strata::run {

namespace {

using Clock = SpanRecorder::Clock;

int64_t microseconds(Clock::duration d)
{
    // Floor, not truncation: a span that ends where another starts stays before it, below 0 too.
    const auto us = std::chrono::floor<std::chrono::microseconds>(d);
    return us.count();
}

void appendInteger(std::string& out, int64_t value)
{
    char digits[24];
    const auto [end, error] = std::to_chars(digits, digits + sizeof digits, value);
    out.append(digits, end);
}

} // namespace

StepTracer::StepTracer()
    : m_steadyOrigin(Clock::now()),
      m_systemOriginUs(std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count())
{
    m_placed.reserve(512);
    m_open.reserve(64);
    m_text.reserve(8192);
}

const std::string& StepTracer::take(Clock::time_point stepBegin, int64_t clockOffsetUs)
{
    m_text.clear();
    m_text += "{\"t0\":";
    appendInteger(m_text, m_systemOriginUs + microseconds(stepBegin - m_steadyOrigin) + clockOffsetUs);
    m_text += ",\"spans\":[";
    bool first = true;
    for (size_t l = 0; l < kTraceLanes; ++l) {
        const auto lane = static_cast<TraceLane>(l);
        m_recorder.take(lane, m_taken);
        m_placed.clear();
        for (const SpanRecorder::Span& s : m_taken)
            m_placed.push_back({microseconds(s.begin - stepBegin), microseconds(s.end - stepBegin), &s});
        // Parents before their children: by start, the longer first.
        std::sort(m_placed.begin(), m_placed.end(), [](const Placed& a, const Placed& b) {
            return a.start != b.start ? a.start < b.start : a.end > b.end;
        });
        m_open.clear();
        const char* laneName = traceLaneName(lane);
        for (Placed& p : m_placed) {
            while (!m_open.empty() && m_open.back().end <= p.start)
                m_open.pop_back();
            if (!m_open.empty())
                p.end = std::min(p.end, m_open.back().end);
            p.end = std::max(p.end, p.start);
            m_open.push_back(p);
            m_text += first ? "[\"" : ",[\"";
            first = false;
            m_text += laneName;
            m_text += "\",\"";
            m_text += p.span->name;
            if (p.span->index >= 0) {
                m_text += ' ';
                appendInteger(m_text, p.span->index);
            }
            m_text += "\",";
            appendInteger(m_text, p.start);
            m_text += ',';
            appendInteger(m_text, p.end - p.start);
            m_text += ']';
        }
    }
    m_text += ']';
    if (m_writtenOffset != clockOffsetUs) {
        m_text += ",\"clock_offset_us\":";
        appendInteger(m_text, clockOffsetUs);
        m_writtenOffset = clockOffsetUs;
    }
    m_text += '}';
    return m_text;
}

} // namespace strata::run
