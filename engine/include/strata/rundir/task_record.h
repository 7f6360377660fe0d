#pragma once
// The task record, task-<task>.json (TaskFiles::record): which processes run a task started
// by `strata-engine start` and, once its supervisor saw the trainer end, how it ended. The
// supervisor writes it atomically; followers read it to signal the trainer and to notice
// processes that vanished, the sidecar evaluator to learn that the chief ended.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace strata::run {

// A process named so that a reused pid is never taken for it.
struct ProcessIdentity {
    int64_t pid = 0;
    uint64_t start = 0; // field 22 of /proc/<pid>/stat: when it started, in clock ticks after boot

    // The process `pid` as it is now; nullopt when there is none or it is a zombie.
    static std::optional<ProcessIdentity> of(int64_t pid);
    // Whether this very process still runs (a zombie does not).
    bool alive() const;

    nlohmann::ordered_json toJson() const;
    bool operator==(const ProcessIdentity&) const = default;
};

struct TaskRecord {
    std::string task;
    std::string host;
    std::string launch;       // the launch it belongs to (`start --launch`); empty when not named
    ProcessIdentity supervisor;
    ProcessIdentity trainer;
    double started = 0;       // unix seconds
    int64_t eventsOffset = 0; // where this session begins in the events file
    int64_t stderrOffset = 0; // and in the stderr log
    nlohmann::ordered_json ended; // null while it runs; then the `exit` event its supervisor appended

    // Ended, or both processes gone without a word (killed together, node restarted).
    bool over() const { return !ended.is_null() || (!supervisor.alive() && !trainer.alive()); }

    nlohmann::ordered_json toJson() const;
    // The record in `path`; nullopt when there is none or it is not one.
    static std::optional<TaskRecord> read(const std::string& path);
};

} // namespace strata::run
