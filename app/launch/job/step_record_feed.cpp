#include "app/launch/job/step_record_feed.h"

#include "app/metrics/metrics_store.h"

namespace strata::app {

std::vector<ParsedEvent> StepRecordFeed::read(MetricsStore& store, const QString& task)
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
    } while (!m_tail.atEnd());
    return records;
}

} // namespace strata::app
