#pragma once
// The supervisor of a task started by `strata-engine start`: a process detached from the
// one that started it (own session; none of its descriptors, so an SSH channel closes when
// the front process ends), which starts the trainer (`strata-engine train ...`), records
// both processes in the task record, waits for the trainer and appends its `exit` event.

#include "strata/rundir/run_directory.h"

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace strata::cli {

struct SupervisorPlan {
    const run::RunDirectory* runDir = nullptr; // absolute path
    std::string task;
    std::string engine;                        // this binary, resolved before forking
    std::string token;                         // the trainer's first line of stdin
    std::vector<std::string> trainOptions;     // passed on to `train` ("--event-interval-ms", "100", ...)
    int64_t eventsOffset = 0;                  // where this session begins, for the task record
    int64_t stderrOffset = 0;
    std::string launch;                        // for the task record: which launch started it
    std::string host;                          // for the task record: where it runs (empty: hostName())
};

// Forks the supervisor and returns its pid (in the calling process, its parent). Call it
// while the process is single-threaded. Throws IoError when it cannot fork.
pid_t startSupervisor(const SupervisorPlan& plan);

} // namespace strata::cli
