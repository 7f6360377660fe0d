#include "app/launch/job/step_record_feed.h"

#include "app/metrics/metrics_store.h"

#include <algorithm>
#include <limits>

namespace strata::app {

std::vector<ParsedEvent> StepRecordFeed::read(MetricsStore& store, const QString& task)
{
    return readThrough(store, task, std::numeric_limits<int64_t>::max());
}

std::vector<ParsedEvent> StepRecordFeed::readFor(MetricsStore& store, const QString& task,
                                                 const std::vector<ParsedEvent>& events)
{
    int64_t last = 0;
    for (const ParsedEvent& event : events)
        if (event.kind == ParsedEvent::Kind::Step)
            last = std::max(last, event.step.step.value_or(0));
    return readThrough(store, task, last);
}

std::vector<ParsedEvent> StepRecordFeed::readThrough(MetricsStore& store, const QString& task, int64_t step)
{
    std::vector<ParsedEvent> records;
    QString error;
    do {
        if (!m_tail.read(records, &error)) {
            if (!m_warned) {
                m_warned = true;
                store.appendLog(task, QStringLiteral("warning"), error);
            }
            break;
        }
    } while (!m_tail.atEnd() && (records.empty() || records.back().step.step.value_or(0) <= step));
    return records;
}

} // namespace strata::app
