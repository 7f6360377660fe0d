#pragma once
// Events (docs/event-schema.md) parsed for the MetricsStore, from JSON Lines or from a Json.
//
// A line is parsed once, with simdjson. A `step` event, the bulk of a stream, becomes a
// StepEvent read straight from the parsed line; any other event becomes a Json (the store
// keeps some whole); a line that is not a JSON object stays its text, for the store's
// warning. fromJson() turns a Json event into exactly what its line would give, by the same
// rules, so the store has one way to apply each event whatever its source.
//
// Field rules (MetricsStore's): a field of the wrong type counts as absent, never an error;
// numbers may be written as integers or floats; a key given twice counts once, with its last
// value, in the place of its first (as nlohmann's parser keeps it). What simdjson refuses (integers beyond 64 bits, nesting
// deeper than 1024, ...) goes to nlohmann, so a line is an event exactly when nlohmann reads
// it as a JSON object.
//
// Threads: an EventParser is used by one thread at a time; forThisThread() gives each thread
// its own, kept for reuse (the launcher's ingest thread, MetricsStore::ingestLines, and
// run_replay, which parses on the threads that rebuild runs).

#include "app/trace/step_trace.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::app {

using Json = nlohmann::ordered_json;

// What the store keeps of a `step` event.
struct StepEvent {
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

    std::optional<int64_t> step; // absent or not a number: the task's last step stays
    std::optional<int64_t> epoch;
    // NaN: absent or not a number (no point is added).
    double loss = kNone, samplesPerSec = kNone;
    double lr = kNone;      // the learning rate
    double samples = kNone; // samples of the step (a step record) or window (a ParameterServer worker's)
    double stepMs = kNone, computeMs = kNone, commMs = kNone, inputMs = kNone; // `time_ms`
    struct Metric {
        QString name;
        float value = 0; // NaN is kept (a Json event can hold one)
    };
    std::vector<Metric> metrics; // the members of `metrics` that are numbers, each name once
    struct Replica {
        int replica = 0;  // `replica`, else its position in the array
        QString device;   // empty: absent or not a string
        double loss = kNone, samples = kNone;
    };
    std::vector<Replica> replicas; // the members of `replicas` that are objects, or of a step
                                   // record's `replica_loss` that are numbers (loss only)

    // ParameterServer. A worker: the last global step it ran (its points are drawn at it, so
    // that every worker's lines share the coordinator's axis) and how stale its gradients were
    // (steps the variables moved on between its pull and its push).
    std::optional<int64_t> globalStep;
    double stalenessMean = kNone, stalenessMax = kNone;
    // The coordinator: each worker as it sees it, the members of `workers` that are objects.
    struct Worker {
        QString task;  // "worker:0"
        int64_t steps = 0;
        double samplesPerSec = kNone, stalenessMean = kNone, stalenessMax = kNone;
        QString state; // "training", "waiting" (held back by the staleness bound), "lost"
    };
    std::vector<Worker> workers;

    // A full-resolution step record's `trace` (app/trace/step_trace.h): present when `trace` is
    // an object whose `t0` is a number; its `step` is the record's (0 without one). The members
    // of `spans` that are arrays of [lane string, name string, start number, duration number]
    // (durations below 0 skipped), lane and name interned.
    std::optional<StepTrace> trace;
};

struct ParsedEvent {
    enum class Kind { Step, Other, NotAnEvent };
    Kind kind = Kind::NotAnEvent;
    double t = StepEvent::kNone;  // `t`, NaN when absent or not a number
    std::optional<QString> task;  // `task` when it is a string
    StepEvent step;               // Kind::Step
    Json json;                    // Kind::Other: the whole event
    QByteArray line;              // Kind::NotAnEvent: the line, as the store's warning quotes it

    // `type` when it is a string, else empty.
    std::string_view type() const;
};

// A Json value read by the rules of every event field: nothing when it is not a number;
// numbers convert as nlohmann's get<T>() converts them (an integer given as a float is
// truncated; a float beyond int64's range is no integer).
std::optional<double> numberOf(const Json& value);
std::optional<int64_t> integerOf(const Json& value);

class EventParser {
public:
    EventParser();
    ~EventParser();
    EventParser(const EventParser&) = delete;
    EventParser& operator=(const EventParser&) = delete;

    // The calling thread's parser.
    static EventParser& forThisThread();

    // Appends the events of the JSON Lines in [data, data + size) to `events`, in order: a
    // last line without its newline included, blank lines skipped, spaces and tabs around a
    // line (and a carriage return before its newline) ignored.
    void parseLines(const char* data, size_t size, std::vector<ParsedEvent>& events);
    // One line without its newline; nothing when it is blank.
    std::optional<ParsedEvent> parseLine(std::string_view line);
    // The same for a full-resolution step record of steps-<task>.jsonl (docs/event-schema.md),
    // which has no `type`: a JSON object is a Kind::Step, its fields read as a step event's.
    std::optional<ParsedEvent> parseStepRecord(std::string_view line);
    // A Json event, as its line would be parsed (a value that is not an object: its dump is
    // the line).
    ParsedEvent fromJson(const Json& event);

private:
    template<typename Value>
    ParsedEvent read(const Value& root);
    template<typename Value>
    void readStepField(std::string_view key, const Value& value, StepEvent& step);
    // The step's lists: ParameterServer's `workers`, a step event's `replicas`.
    template<typename Value>
    void readWorkers(const Value& value, StepEvent& step);
    template<typename Value>
    void readReplicas(const Value& value, StepEvent& step);
    template<typename Value>
    void readTrace(const Value& value, StepEvent& step);
    ParsedEvent parseTrimmed(std::string_view line);
    // The same QString for the same text (task, device and metric names repeat in every event):
    // a copy, not a conversion and an allocation.
    const QString& intern(std::string_view utf8);

    struct Simd;
    std::unique_ptr<Simd> m_simd;
    std::vector<std::pair<std::string, QString>> m_names;
    bool m_stepRecords = false; // read(): every object is a step (parseStepRecord)
};

} // namespace strata::app
