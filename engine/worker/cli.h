#pragma once
// strata-engine's command line: parsed arguments, and turning exceptions into `error`
// events and exit codes at the process edge.

#include "strata/report/event_sink.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace strata::cli {

// 3 and 4 are the follower's (start, attach): no such task; the app went away or stopped reading.
enum ExitCode { kOk = 0, kFailed = 1, kUsage = 2, kNoTask = 3, kDetached = 4 };

struct Args {
    std::string command;
    std::vector<std::string> positional;
    std::map<std::string, std::string> options; // "--run-dir" -> "runs/x"; flags map to ""

    bool has(const std::string& name) const { return options.count(name) > 0; }
    std::string value(const std::string& name, const std::string& fallback = "") const;
    // The option as a number (`fallback` when absent); UsageError when it is not one.
    double number(const std::string& name, double fallback) const;
};

// Parses argv; `valued` lists the options that take a value. Throws UsageError.
Args parseArgs(int argc, char** argv, const std::vector<std::string>& valued);

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Where live events go for this invocation: stdout when it is not a terminal (the app reads
// it), nowhere when it is (a person reads stderr); --events stdout|none decides explicitly.
std::FILE* eventStream(const Args& args);

// Runs `body`, turning exceptions into an `error` event on `events` and a message on
// stderr; returns the exit code.
int guarded(run::EventSink& events, const std::function<int()>& body);

int trainCommand(const Args& args);
int startCommand(const Args& args);
int attachCommand(const Args& args);
int probeCommand(const Args& args);
int planProbeCommand(const Args& args);
int devicesCommand(const Args& args);
int validateCommand(const Args& args);
int summaryCommand(const Args& args);
int evaluateCommand(const Args& args);
int predictCommand(const Args& args);
int exportKerasCommand(const Args& args);
int clusterCommand(const Args& args);
int slurmTaskCommand(const Args& args);

} // namespace strata::cli
