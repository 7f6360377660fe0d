#pragma once
// The event stream (engine -> app): JSON Lines, one object per event, each with
// "v" (kEventSchemaVersion), "type", "t" (unix seconds) and "task" ("worker:0").
// docs/event-schema.md documents every type and field. The events that both a training loop
// and its readers know field by field are typed below: one writer (toJson) and one reader
// (read...) each, so the two cannot drift apart.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata::spec {

constexpr int kEventSchemaVersion = 1;

namespace event {
constexpr const char* kHello = "hello";
constexpr const char* kStart = "start";
constexpr const char* kPlacement = "placement";
constexpr const char* kDevice = "device";
constexpr const char* kStep = "step";
constexpr const char* kEpoch = "epoch";
constexpr const char* kCheckpoint = "checkpoint";
constexpr const char* kEvaluation = "evaluation";
constexpr const char* kLog = "log";
constexpr const char* kError = "error";
constexpr const char* kDone = "done";
// ParameterServer: a ps task's traffic and updates; the coordinator's view of its workers.
constexpr const char* kPs = "ps";
constexpr const char* kMembership = "membership";
constexpr const char* kExit = "exit";   // written by a task's supervisor (or follower), not the engine
constexpr const char* kCheck = "check"; // `strata-engine probe --check`
// A follower's first line (start, attach): where in the task's files it starts. Not an event of
// the task: not in its events file.
constexpr const char* kFollow = "follow";
// A follower's frame of step records (start --relay-steps, attach --steps-offset): `bytes`
// bytes of steps-<task>.jsonl lines follow the line. Not an event either.
constexpr const char* kStepRecords = "step_records";
} // namespace event

// `loss` and each metric, in the order reported (an epoch's `train` and `validation`).
using MetricValues = std::vector<std::pair<std::string, double>>;

// `start`: the run's shape, before the first step.
struct StartEvent {
    std::string experiment, runDir, strategy;
    int64_t replicas = 0, taskReplicas = 0, workers = 1;
    std::optional<int64_t> ps; // ParameterServer: its ps tasks
    int64_t epochs = 0, stepsPerEpoch = 0, totalSteps = 0;
    int64_t batchSize = 0, perReplicaBatchSize = 0, params = 0;
    int64_t trainExamples = 0, validationExamples = 0, testExamples = 0;
    std::optional<int64_t> resumedFromStep; // null on the wire when training starts fresh
};

// `epoch`: an epoch just finished.
struct EpochEvent {
    int64_t epoch = 0, epochs = 0, step = 0;
    MetricValues train;
    std::optional<MetricValues> validation; // when there is validation data
    double seconds = 0;
};

// Readers follow the app's field rules: a field absent or of another type keeps its default.
nlohmann::ordered_json toJson(const StartEvent& event);
StartEvent readStartEvent(const nlohmann::ordered_json& fields);
nlohmann::ordered_json toJson(const EpochEvent& event);
EpochEvent readEpochEvent(const nlohmann::ordered_json& fields);
nlohmann::ordered_json toJson(const MetricValues& values);
MetricValues readMetricValues(const nlohmann::ordered_json& object);

} // namespace strata::spec
