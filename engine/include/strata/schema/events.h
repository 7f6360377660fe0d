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

namespace strata::schema {

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
// `strata-engine plan-probe`: the scaling planner's measurements (docs/planner.md).
constexpr const char* kProbeCompute = "probe_compute";
constexpr const char* kProbeCollective = "probe_collective";
constexpr const char* kProbePs = "probe_ps";
constexpr const char* kProbeSummary = "probe_summary";
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

// MultiWorkerMirrored's part of a `placement`: this task among the job's training tasks. At
// namespace scope because clang cannot default-construct a nested struct with member
// initializers inside an std::optional member of the struct that encloses it.
struct PlacementMultiWorker {
    std::string task;
    int64_t workers = 0;
    std::vector<std::string> tasks; // in rank order
    int64_t totalReplicas = 0;
};

// MultiWorkerMirrored's reduction tuned in the first steps (strategy.bucket_bytes "auto"):
// at namespace scope for the same reason.
struct PlacementTuning {
    std::string state;          // "tuning" (candidates measured in turn) or "tuned" (the choice kept)
    int64_t candidates = 0;     // configurations tried
    int64_t steps = 0;          // steps tuning takes, from the task's start
    std::string allReduce;      // tuned: the chosen algorithm ("chunked ring")
    double speedup = 1;         // tuned: the choice's score over the default's (1: the default kept)
};

// `placement`: where everything runs. What a strategy describes (Strategy::placement()); the
// parts only some strategies have are optional, absent on the wire when empty (read as there
// when any of their fields is).
struct PlacementEvent {
    struct Replica {
        int64_t replica = 0;
        std::string device;
        int64_t threads = 1; // its GEMM threads (1 when a replica entry has none, as the app reads it)
    };
    struct LearningRate {
        double base = 0, scaled = 0;
        std::string rule;
    };
    struct Precision {
        std::string compute, variables, gemm, convolution, lossScaling;
    };
    using MultiWorker = PlacementMultiWorker;
    // ParameterServer (the coordinator's placement).
    struct ParameterServer {
        std::vector<std::string> workerTasks, psTasks;
        nlohmann::ordered_json partitioner; // the experiment's strategy.partitioner
        std::optional<int64_t> maxStaleness; // null on the wire: asynchronous
    };
    struct Shard {
        std::string name, ps;
        int64_t rowBegin = 0, rowEnd = 0, bytes = 0;
    };
    struct Variable {
        std::string name;
        std::vector<int64_t> shape;
        int64_t bytes = 0;
        std::vector<std::string> devices; // those holding a copy (ParameterServer: its ps tasks)
        std::optional<std::vector<Shard>> shards; // ParameterServer
    };
    struct Reduction {
        std::optional<std::string> crossDeviceOps; // Mirrored
        std::string algorithm;
        std::optional<int64_t> bucketBytes, buckets; // MultiWorkerMirrored
        int64_t bytesPerStep = 0;
        std::optional<PlacementTuning> tuning; // MultiWorkerMirrored with bucket_bytes "auto"
    };

    std::string strategy;
    std::optional<std::string> requestedStrategy; // when it differs (a TPU experiment's fallback)
    std::vector<Replica> replicas;
    int64_t perReplicaBatchSize = 0, globalBatchSize = 0;
    LearningRate learningRate;
    Precision precision;
    std::optional<std::string> parameterDevice; // CentralStorage
    std::optional<MultiWorker> multiWorker;
    std::optional<ParameterServer> parameterServer;
    std::vector<Variable> variables;
    Reduction reduction;
};

// Readers follow the app's field rules: a field absent or of another type keeps its default,
// the struct's or the caller's (`defaults`: what a reader falls back on, such as the task's
// step for an epoch without one, differs from reader to reader).
nlohmann::ordered_json toJson(const StartEvent& event);
StartEvent readStartEvent(const nlohmann::ordered_json& fields, StartEvent defaults = {});
nlohmann::ordered_json toJson(const EpochEvent& event);
EpochEvent readEpochEvent(const nlohmann::ordered_json& fields, EpochEvent defaults = {});
nlohmann::ordered_json toJson(const MetricValues& values);
MetricValues readMetricValues(const nlohmann::ordered_json& object);
nlohmann::ordered_json toJson(const PlacementEvent& event);
PlacementEvent readPlacementEvent(const nlohmann::ordered_json& fields);

} // namespace strata::schema
