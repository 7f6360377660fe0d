#pragma once
// The launcher's files in a run directory: where a new one goes, the lock that lets one Strata follow the run at a
// time, the launch record (nodes.json: where each task runs; launch.strata.json: the
// experiment as launched) and each task's step records.

#include "app/launch/launch_plan.h"
#include "app/rundir/task_places.h"

#include <QLockFile>
#include <QString>

#include <memory>
#include <vector>

namespace strata::app {

// A new run directory under the user's data directory: runs/<name>-<yyyyMMdd-HHmmss>, with
// -2, -3... when that exists already.
QString newRunDir(const QString& experimentName);
// Creates `runDir` and locks it; null with the reason (naming the Strata that holds it).
std::unique_ptr<QLockFile> lockRunDir(const QString& runDir, QString* error);
// Where a run's tasks run and its experiment; false with the reason when the run has no
// record of them (a run of an older Strata, or of the engine alone).
bool readLaunchRecord(const QString& runDir, std::vector<TaskPlace>& places, Json& experiment, QString* error);
// A task's steps-<task>.jsonl in `runDir` (a remote task's copy).
QString stepsPath(const QString& runDir, const QString& task);

} // namespace strata::app
