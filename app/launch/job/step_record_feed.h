#pragma once
// StepRecordFeed: a task's step records (steps-<task>.jsonl in the run directory; a remote
// task's copy), read on the ingest thread only: each time the task's events arrive, what the
// file gained goes into the store with them (the engine writes a step's record before any
// event after it).

#include "app/metrics/event_parse.h"
#include "app/rundir/step_record_tail.h"

#include <QString>

#include <vector>

namespace strata::app {

class MetricsStore;

class StepRecordFeed {
public:
    StepRecordFeed(const QString& path, qint64 offset) : m_tail(path, offset) {}

    // All the file holds now: the records of every step up to the events being handed over.
    // A file that cannot be read is reported to `store` once (the events still give a point
    // per window).
    std::vector<ParsedEvent> read(MetricsStore& store, const QString& task);

private:
    StepRecordTail m_tail;
    bool m_warned = false;
};

} // namespace strata::app
