#include "app/metrics/recent_timeline.h"

#include "app/metrics/metrics_store.h"
#include "app/metrics/natural_order.h"

#include <algorithm>

namespace strata::app {

Timeline recentTimeline(const MetricsStore& store, const TimelineQuery& query)
{
    Timeline timeline;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        std::vector<TimelineSource> sources;
        for (const TaskData& td : tasks)
            if (!td.traces.empty())
                sources.push_back({td.task, &td.traces});
        std::sort(sources.begin(), sources.end(),
                  [](const TimelineSource& a, const TimelineSource& b) { return naturalCompare(a.task, b.task) < 0; });
        timeline = timelineWindow(sources, query);
    });
    return timeline;
}

} // namespace strata::app
