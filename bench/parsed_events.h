#pragma once
// Event lines and step records (synthetic_events.h) parsed as the launcher's ingest thread
// parses them, for the dashboard benchmarks that fill a MetricsStore directly.

#include "app/metrics/event_parse.h"

#include <string>
#include <string_view>
#include <vector>

namespace benchevents {

// Step records (steps-<task>.jsonl lines), as the launcher's tail parses them.
inline std::vector<strata::app::ParsedEvent> parseRecords(const std::string& lines)
{
    std::vector<strata::app::ParsedEvent> out;
    strata::app::EventParser& parser = strata::app::EventParser::forThisThread();
    for (size_t from = 0; from < lines.size();) {
        const size_t to = lines.find('\n', from);
        if (auto record = parser.parseStepRecord(std::string_view(lines).substr(from, to - from)))
            out.push_back(std::move(*record));
        from = to + 1;
    }
    return out;
}

inline std::vector<strata::app::ParsedEvent> parseEvents(const std::string& lines)
{
    std::vector<strata::app::ParsedEvent> out;
    strata::app::EventParser::forThisThread().parseLines(lines.data(), lines.size(), out);
    return out;
}

} // namespace benchevents
