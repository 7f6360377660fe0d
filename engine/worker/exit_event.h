#pragma once
// The `exit` event: how a task's trainer process ended, the last line of its session in
// events-<task>.jsonl. Its supervisor appends it; a follower appends the `vanished` form
// when supervisor and trainer are both gone without one (docs/event-schema.md).

#include <nlohmann/json.hpp>

#include <string>

namespace strata::cli {

// From a waitpid() status: {"code": N}, or {"signal": N, "signal_name": "KILL"[, "core_dumped": true]}.
nlohmann::ordered_json exitEvent(const std::string& task, int waitStatus);
nlohmann::ordered_json vanishedExitEvent(const std::string& task);
// Code 127 with `message`: the supervisor could not start (or wait for) the trainer.
nlohmann::ordered_json failedExitEvent(const std::string& task, const std::string& why);

// The event as one line, written as EventSink writes events.
std::string eventLine(const nlohmann::ordered_json& event);

// Whether `line` (without its '\n') is an `exit` event.
bool isExitLine(const char* line, size_t size);

// Appends `event` to the events file `path` with one write on an O_APPEND descriptor and
// fsyncs it; a newline first when the file ends inside a line (a writer killed mid-line).
// Throws IoError.
void appendEvent(const std::string& path, const nlohmann::ordered_json& event);

} // namespace strata::cli
