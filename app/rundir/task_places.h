#pragma once
// <run dir>/nodes.json: where each task of a run runs, written by the launcher when it starts
// the tasks: the node and host, whether it is reached over SSH, the engine and the run
// directory there, and, for a remote task, how the node's event, stderr and step record files
// line up with their copies here (`events_base`: a byte offset in the node's events file minus
// the same position in the copy; non-zero when the node's file holds an earlier session this
// copy has not). Following a run again (after the app closed) and rebuilding it (the hosts shown) read
// it:
//
//   {"tasks": [{"task": "worker:1", "node": "b", "host": "198.18.1.2", "remote": true,
//               "engine": "strata-engine", "run_dir": "strata-runs/mlp-20261124-101010",
//               "events_base": 0, "stderr_base": 0, "steps_base": 0, "slurm": false}]}

#include "app/metrics/metrics_store.h"

#include <QString>

#include <vector>

namespace strata::app {

struct TaskPlace {
    QString task;
    QString node;
    QString host;
    bool remote = false;
    QString engine;
    QString runDir;        // on the node
    qint64 eventsBase = 0; // node offset - local offset (remote tasks)
    qint64 stderrBase = 0;
    qint64 stepsBase = 0;
    bool slurm = false;    // a task of the run's Slurm job (slurm-job.json), followed through the shared directory
};

QString taskPlacesPath(const QString& runDir);
// Replaces the file atomically; false with the reason (naming the file) when it cannot.
bool writeTaskPlaces(const QString& runDir, const std::vector<TaskPlace>& places, QString* error);
// True and none when there is no file (a run of an older Strata, or of the engine alone);
// false with the reason, naming the file, when it cannot be read or is malformed.
bool readTaskPlaces(const QString& runDir, std::vector<TaskPlace>& places, QString* error);
// The engine's name for a task in its files (run::taskFileName): "worker:0" -> "worker-0".
QString taskFileStem(QString task);

} // namespace strata::app
