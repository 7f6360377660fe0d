// `strata-engine start | attach`: a task detached from the app that started it, and the
// follower that relays it (docs/decisions.md, "Task supervision").

#include "cli.h"
#include "follower.h"
#include "stdin_reader.h"
#include "supervisor.h"
#include "task_options.h"
#include "tf_config.h"

#include "strata/core/error.h"
#include "strata/rundir/run_directory.h"
#include "strata/rundir/task_files.h"
#include "strata/rundir/task_record.h"
#include "strata/schema/experiment.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <thread>

namespace strata::cli {

namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxExperimentBytes = size_t(256) << 20;

std::string required(const Args& args, const std::string& option)
{
    if (!args.has(option) || args.value(option).empty())
        throw UsageError(args.command + " needs " + option);
    return args.value(option);
}

FollowOptions followOptions(const Args& args, const std::string& runDir)
{
    if (!args.positional.empty())
        throw UsageError(args.command + " takes no experiment file: " +
                         (args.command == "start" ? "it reads the experiment from standard input" : "the task has it"));
    FollowOptions o;
    o.runDir = runDir;
    o.task = required(args, "--task");
    const double heartbeat = args.number("--heartbeat-ms", 1000);
    const double stall = args.number("--stall-seconds", 60);
    if (heartbeat < 1 || stall <= 0)
        throw UsageError("--heartbeat-ms needs at least 1 and --stall-seconds a positive number");
    o.heartbeat = std::chrono::milliseconds(static_cast<int64_t>(heartbeat));
    o.stall = std::chrono::milliseconds(static_cast<int64_t>(stall * 1000));
    return o;
}

int64_t offsetOption(const Args& args, const std::string& option, int64_t fallback)
{
    const double n = args.number(option, static_cast<double>(fallback));
    if (n < 0 || n != static_cast<double>(static_cast<int64_t>(n)))
        throw UsageError(option + " needs a byte offset (a whole number, 0 or more)");
    return static_cast<int64_t>(n);
}

// The experiment's byte count, the second line of stdin.
size_t byteCount(const std::optional<std::string>& line)
{
    if (!line)
        throw UsageError("standard input ended before the experiment's byte count (line 2)");
    const bool digits = !line->empty() && line->size() <= 10 &&
                        std::all_of(line->begin(), line->end(), [](unsigned char c) { return std::isdigit(c); });
    const size_t n = digits ? std::stoull(*line) : 0;
    if (!digits || n > kMaxExperimentBytes)
        throw UsageError("line 2 of standard input must be the experiment's size in bytes (at most " +
                         std::to_string(kMaxExperimentBytes) + "), not \"" + line->substr(0, 40) + "\"");
    return n;
}

// `dir` absolute and normal, without a trailing '/'.
std::string absoluteDir(const std::string& dir)
{
    fs::path p = fs::absolute(dir).lexically_normal();
    return (p.has_filename() ? p : p.parent_path()).string();
}

} // namespace

int startCommand(const Args& args)
{
    run::EventSink events(args.value("--task", "start"), stdout);
    return guarded(events, [&] {
        FollowOptions options = followOptions(args, absoluteDir(required(args, "--run-dir")));
        const std::vector<std::string> trainOptions = trainOptionsOf(args, true);
        const std::string launch = args.value("--launch", "");

        const run::RunDirectory runDir(options.runDir);
        StdinReader input;
        const std::optional<std::string> token = input.readLine();
        if (!token)
            throw UsageError("standard input ended before the job's token (line 1)");
        const std::string experiment = input.readBytes(byteCount(input.readLine()), "the experiment");
        runDir.writeFile("launch.strata.json", experiment);
        schema::Experiment checked = loadWithTfConfig(runDir.file("launch.strata.json"));

        const run::TaskFiles files = run::TaskFiles::of(runDir.path(), options.task);
        // A supervisor appends the exit line before it rewrites the record: a task started
        // again the moment its follower relayed that line finds a record still running, whose
        // trainer is gone. Its supervisor is finishing: given a moment, the record ends.
        auto record = run::TaskRecord::read(files.record);
        for (int i = 0; i < 100 && record && !record->over() && !record->trainer.alive(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            record = run::TaskRecord::read(files.record);
        }
        if (record && !record->over())
            throw UsageError(options.task + " is already running in " + runDir.path() + " (trainer pid " +
                             std::to_string(record->trainer.pid) + "): attach to it, or stop it first");
        std::error_code ec;
        fs::remove(files.record, ec); // a previous session's: followers must not take it for this one's
        options.eventsOffset = fileSize(files.events);
        options.stderrOffset = fileSize(files.stderrLog);
        if (args.has("--relay-steps")) // this session's records: those after what the file holds now
            options.stepsOffset = fileSize(files.steps);

        options.supervisor = startSupervisor({&runDir, options.task, thisExecutable(), *token, trainOptions,
                                             options.eventsOffset, options.stderrOffset, launch});
        return follow(options, input);
    });
}

int attachCommand(const Args& args)
{
    run::EventSink events(args.value("--task", "attach"), stdout);
    return guarded(events, [&] {
        const std::string runDir = absoluteDir(required(args, "--run-dir"));
        FollowOptions options = followOptions(args, runDir);
        const run::TaskFiles files = run::TaskFiles::of(runDir, options.task);
        const auto record = run::TaskRecord::read(files.record);
        if (!record && !fs::exists(files.events)) {
            std::fprintf(stderr, "strata-engine: %s has no task %s (neither %s nor %s exists)\n", runDir.c_str(),
                         options.task.c_str(), fs::path(files.record).filename().c_str(),
                         fs::path(files.events).filename().c_str());
            return static_cast<int>(kNoTask);
        }
        // By default from where the task's latest session began.
        options.eventsOffset = offsetOption(args, "--offset", record ? record->eventsOffset : 0);
        options.stderrOffset = offsetOption(args, "--stderr-offset", record ? record->stderrOffset : 0);
        if (args.has("--steps-offset"))
            options.stepsOffset = offsetOption(args, "--steps-offset", 0);
        StdinReader input;
        return follow(options, input);
    });
}

} // namespace strata::cli
