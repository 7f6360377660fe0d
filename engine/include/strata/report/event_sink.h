#pragma once
// EventSink: writes events as JSON Lines to a stream (stdout, for the app) and to the run
// directory's events-<task>.jsonl, plus full-resolution step records to steps-<task>.jsonl.
// Thread-safe: a monitor thread may emit while the trainer does.

#include <nlohmann/json.hpp>

#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace strata::run {

using Json = nlohmann::ordered_json;

class EventSink {
public:
    // `stream` may be null (no live stream).
    EventSink(std::string task, std::FILE* stream);
    ~EventSink();
    EventSink(const EventSink&) = delete;
    EventSink& operator=(const EventSink&) = delete;

    const std::string& task() const { return m_task; }
    // "worker:0" -> "worker-0", for file names.
    std::string taskFileName() const;

    // Starts appending events (and step records) to files in `runDir`; events emitted before
    // (such as `hello`) are written there first. Throws IoError.
    void openRunFiles(const std::string& runDir);

    // Adds v, type, t and task to `fields` and writes it everywhere.
    void emit(const char* type, Json fields);
    // A full-resolution step record, with its time `t` added first: the step file only.
    // Every record made before an event is in the file when that event is (emit() flushes
    // the step file first), so a reader that sees an event has every step before it.
    // `trace`: the step's timeline as JSON text (StepTracer::take), appended as the record's
    // `trace` field as it is (empty: none).
    void record(Json fields, std::string_view trace = {});
    void flush();

    static double now();

private:
    void writeLine(std::FILE* f, const std::string& line);

    std::string m_task;
    std::FILE* m_stream;
    std::FILE* m_eventsFile = nullptr;
    std::FILE* m_stepsFile = nullptr;
    std::vector<std::string> m_beforeFiles; // events emitted before openRunFiles
    std::mutex m_mutex;
};

} // namespace strata::run
