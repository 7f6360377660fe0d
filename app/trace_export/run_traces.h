#pragma once
// A run directory's step timelines, read for the trace export: each task's step records
// (`steps-<task>.jsonl`) that carry a `trace` (app/trace/step_trace.h), with the step's samples
// and time for its throughput, and the task's host from its `hello` event
// (`events-<task>.jsonl`). Tasks are named by their events' `task` field (the file name writes
// `worker:0` as `worker-0`), in natural order ("worker:2" before "worker:10").
//
// Lines are read by the app's EventParser, so the field rules are the dashboard's. A line that
// is not a JSON object is an error naming the file and line, except an unfinished last line
// (an engine killed mid-write), which is skipped with a warning.

#include "app/trace/step_trace.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace strata::app {

struct TracedStep {
    StepTrace trace;
    double samples = 0; // the step's samples (this task's), 0 when the record has none
    double stepMs = 0;  // its wall time, 0 when none
};

struct TaskTraces {
    QString task;  // "worker:0"
    QString host;  // the last `hello` event's host; empty when unknown
    std::vector<TracedStep> steps; // in the file's order
};

struct RunTraces {
    QString runDir;
    QString label; // how the export names the run ("#12 mnist" or the directory's name)
    std::vector<TaskTraces> tasks; // those with at least one traced step
    QStringList warnings;
};

// Reads `runDir`. False with the reason naming the path: the directory is missing, holds no
// step records, a file cannot be read or holds a line that is not a JSON object, or no step of
// any task carries a timeline.
bool readRunTraces(const QString& runDir, const QString& label, RunTraces* run, QString* error);

} // namespace strata::app
