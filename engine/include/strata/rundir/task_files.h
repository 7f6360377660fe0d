#pragma once
// The files one task keeps in its run directory, by name. A task started by
// `strata-engine start` has all of them; one started by plain `train` only the events and
// steps files.

#include <string>

namespace strata::run {

// "worker:0" -> "worker-0": a task's name as it appears in file names.
std::string taskFileName(const std::string& task);

struct TaskFiles {
    std::string events;     // events-<task>.jsonl: the event stream, ending with `exit` per session
    std::string steps;      // steps-<task>.jsonl: a record per step (EventSink writes it)
    std::string stderrLog;  // stderr-<task>.log: the supervisor's and trainer's stderr
    std::string record;     // task-<task>.json: the task's processes and how it ended (TaskRecord)
    std::string attachLock; // attach-<task>.lock: shared-locked by every follower attached
    std::string exitLock;   // exit-<task>.lock: held by a follower appending a `vanished` exit
    // control-<task>.txt: `stop` and `kill` lines appended by an app that cannot reach the
    // task's processes (a Slurm job's, on a node it has no access to); the task polls it.
    std::string control;

    static TaskFiles of(const std::string& runDir, const std::string& task);
};

} // namespace strata::run
