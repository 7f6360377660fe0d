#pragma once
// The Timeline panel's data: every task's last steps (TaskData::traces) laid out by
// timelineWindow() (app/trace/timeline_window.h), the tasks in the task table's natural order
// ("chief:0", "ps:0", "worker:2", "worker:10": grouped by job). Reads under the store's lock.

#include "app/trace/timeline_window.h"

namespace strata::app {

class MetricsStore;

Timeline recentTimeline(const MetricsStore& store, const TimelineQuery& query);

} // namespace strata::app
