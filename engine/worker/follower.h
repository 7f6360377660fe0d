#pragma once
// The follower: relays one task's events-<task>.jsonl (whole lines, byte for byte) to
// stdout and its stderr log to stderr, from given offsets, until the task's `exit` line (and,
// when asked, its steps-<task>.jsonl on stdout too, in `step_records` frames before the events
// they precede);
// takes `stop` and `kill` from stdin for the trainer; holds the shared attach lock that
// tells the task an app is attached. What `strata-engine attach` runs and `start` continues
// as. Single-threaded; the protocol is in docs/decisions.md ("Task supervision").

#include "stdin_reader.h"

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace strata::cli {

struct FollowOptions {
    std::string runDir;
    std::string task;
    int64_t eventsOffset = 0;
    int64_t stderrOffset = 0;
    int64_t stepsOffset = -1; // 0 or more: the step records relayed too, from there
    std::chrono::milliseconds heartbeat{1000}; // an empty line on stdout after this long without output
    std::chrono::milliseconds stall{60000};    // stdout taking nothing this long: the reader is gone
    pid_t supervisor = 0; // `start`: the supervisor just forked (a child of this process); 0 for attach
};

// Follows until the task's exit line has been written (kOk), stdin ends or stdout's reader
// is gone (kDetached). Throws Error when the supervisor (`supervisor`) ended without naming
// its trainer or writing an exit line.
int follow(const FollowOptions& options, StdinReader& input);

} // namespace strata::cli
