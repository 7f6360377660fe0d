#pragma once
// <run dir>/tasks.json: how each task's process ended, as the launcher saw it. The event files
// cannot say it (a killed engine writes nothing more, and exit codes and stderr never reach
// them), so the launcher writes this file when the run finishes, and a run rebuilt from its
// directory (run_replay) records it in the store exactly as the launcher did live:
//
//   {"tasks": [{"task": "worker:0", "exit_code": 0, "crashed": false, "stderr_tail": "...",
//               "failed_to_start": null, "ended": 1763800030.125}]}
//
// `crashed`: ended by a signal, `exit_code` then holds the signal; `failed_to_start`: null,
// or why the process never ran (the other fields then mean nothing); `ended`: unix seconds;
// `vanished` (only when so): the node's account of a task whose supervisor disappeared
// without saying how it ended (the exit status then means nothing).
//
// How a task ended comes from its supervisor's `exit` event (exitFromEvent) when it wrote
// one, else from what the launcher saw of the front process.

#include "app/metrics/metrics_store.h"

#include <QString>

#include <optional>

#include <vector>

namespace strata::app {

struct TaskEnd {
    QString task;          // "worker:0"
    int exitCode = 0;
    bool crashed = false;
    QString stderrTail;    // trimmed, at most the launcher's limit
    QString failedToStart; // empty: it started
    double time = 0;       // unix seconds
    QString vanished;      // empty: its exit is known
};

// The end an `exit` event (its supervisor's account, docs/event-schema.md) gives; nullopt
// when `event` is not one.
std::optional<TaskEnd> exitFromEvent(const Json& event);

// Records `end` in `store` (MetricsStore::taskEnded or taskFailedToStart, at end.time).
void applyTaskEnd(MetricsStore& store, const TaskEnd& end);

QString taskEndsPath(const QString& runDir);
// Replaces the file atomically; false with the reason (naming the file) when it cannot.
bool writeTaskEnds(const QString& runDir, const std::vector<TaskEnd>& ends, QString* error);
// The ends recorded in `runDir`: true and none when there is no file (a run not launched by
// the app, or not finished); false with the reason, naming the file, when it cannot be read
// or is not what writeTaskEnds writes.
bool readTaskEnds(const QString& runDir, std::vector<TaskEnd>& ends, QString* error);

} // namespace strata::app
