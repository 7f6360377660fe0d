#pragma once
// LaunchTask: one task of a job as the launcher follows it, whichever backend runs it
// (backends/launch_backend.h): its plan, the front process following it now, what it sent
// (task_stream.h) and where that ends in its node's files, what it was asked, how it ended.
// Owned by the JobLauncher; its backend keeps a pointer for the run's lifetime.
//
// Threads: the launcher's.

#include "app/launch/job/step_record_feed.h"
#include "app/launch/job/task_process.h"
#include "app/launch/job/task_stream.h"
#include "app/launch/launch_plan.h"
#include "app/rundir/task_ends.h"

#include <QByteArray>

#include <memory>
#include <optional>

namespace strata::app {

class LaunchBackend;

struct LaunchTask {
    PlannedTask plan;
    LaunchBackend* backend = nullptr;   // runs it
    std::unique_ptr<TaskProcess> front; // what follows it now; null while its node is unreachable
    TaskStream stream;
    QByteArray stderrTail; // the end of stderr, for the error report
    // Where in the node's events and stderr files what arrived ends (-1: not known: the front
    // never said where it started, as an engine that does not detach).
    qint64 eventsOffset = -1, stderrOffset = -1;
    std::shared_ptr<StepRecordFeed> records; // its steps file here (a remote task's copy)
    bool terminated = false;      // asked to stop by the launcher
    bool killed = false;          // sent `kill`
    bool commandsPending = false; // asked while unreachable: sent once followed again
    bool reachable = true;        // false while its node cannot be heard (SSH: until its follower speaks)
    std::optional<TaskEnd> exit; // from the supervisor's `exit` event
    bool ended = false;
    TaskEnd end;
};

} // namespace strata::app
