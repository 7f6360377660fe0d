#pragma once
// StepRecordFeed: a task's step records (steps-<task>.jsonl in the run directory; a remote
// task's copy), read on the ingest thread only: each time the task's events arrive, the
// records through their last step go into the store with them (the engine writes a step's
// record before any event after it); when the task ends, the rest.

#include "app/metrics/event_parse.h"
#include "app/rundir/step_record_tail.h"

#include <QString>

#include <vector>

namespace strata::app {

class MetricsStore;

class StepRecordFeed {
public:
    StepRecordFeed(const QString& path, qint64 offset) : m_tail(path, offset) {}

    // All the file holds now (the task ended: nothing follows). A file that cannot be read is
    // reported to `store` once (the events still give a point per window).
    std::vector<ParsedEvent> read(MetricsStore& store, const QString& task);
    // The records the task's `events` need: read until one past their last step (or the end).
    // An engine faster than the app is far ahead in its file: read all at once, its records
    // would reach the window as one refresh's work; read this way, as much as their events.
    std::vector<ParsedEvent> readFor(MetricsStore& store, const QString& task, const std::vector<ParsedEvent>& events);

private:
    std::vector<ParsedEvent> readThrough(MetricsStore& store, const QString& task, int64_t step);

    StepRecordTail m_tail;
    bool m_warned = false;
};

} // namespace strata::app
