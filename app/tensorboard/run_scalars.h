#pragma once
// RunScalars: what a run's tasks reported, as TensorBoard scalars (docs/tensorboard.md lists
// every tag). The Keras-shaped figures of the job come from its primary task (chief:0, else
// worker:0; under ParameterServer the coordinator) into the runs `train`, `validation` and
// `test`, tagged as Keras' TensorBoard callback tags them; each task's own figures go into a
// run named after the task ("worker-1", as in the run directory's file names) with tags of
// Strata's own.
//
// Fed incrementally, in each file's order: a task's events (events-<task>.jsonl) and its
// full-resolution step records (steps-<task>.jsonl), the events first when both grew (a
// record without its own time takes that of the live `step` event covering it). A step
// record at a step already seen (a resumed run repeats the steps after its checkpoint, with
// the same values) is skipped. Values go to a ScalarSink as they are made.
//
// Plain C++ over ParsedEvents (event_parse.h); one thread at a time.

#include "app/metrics/event_parse.h"

#include "strata/schema/events.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace strata::app::tensorboard {

class ScalarSink {
public:
    virtual ~ScalarSink() = default;
    // `run`: "train", "validation", "test" or a task's name in file form ("worker-0").
    virtual void scalar(const std::string& run, const std::string& tag, int64_t step, double wallTime, double value) = 0;
};

class RunScalars {
public:
    // `primaryTask` in file form ("chief-0"); `coordinated`: a ParameterServer job, whose
    // primary task is the coordinator (its step records carry the job's loss, but a worker's
    // step times).
    RunScalars(std::string primaryTask, bool coordinated, ScalarSink& sink);

    // One event of `task` (file form), in its file's order.
    void addEvent(const std::string& task, const ParsedEvent& event);
    // One step record of `task` (EventParser::parseStepRecord), in its file's order.
    void addStepRecord(const std::string& task, const ParsedEvent& record);

private:
    struct TaskState {
        int64_t lastRecordStep = INT64_MIN;
        // The epoch's running mean loss (Keras' batch_loss): sum of loss x samples, samples.
        int64_t epoch = -1;
        double lossSum = 0, samples = 0;
        std::vector<std::pair<int64_t, double>> liveTimes; // (step, t) of its live `step` events
        double lastTime = StepEvent::kNone; // of its latest event
        double lr = StepEvent::kNone;       // of its latest live `step`
        int64_t sessionStart = 0; // the step the session started from (`start`)
        int64_t lastEpochStep = 0;
        int64_t psReports = 0;
        std::vector<std::string> replicaLossTags; // "loss/replica_<i>"
    };

    TaskState& state(const std::string& task);
    // addEvent()'s steps.
    void addLiveStep(const std::string& task, TaskState& s, const StepEvent& step, double t, bool primary);
    void addEpoch(TaskState& s, const Json& e, double t);
    void addDevices(const std::string& task, const Json& e, double t);
    const std::string& replicaLossTag(TaskState& s, int replica);
    // `run`'s "<prefix><name><suffix>" for each of `values` (an event's object: its members that are numbers).
    void putObject(const std::string& run, const schema::MetricValues& values, const char* prefix, const char* suffix,
                   int64_t step, double t);
    void put(const std::string& run, const std::string& tag, int64_t step, double t, double value);

    std::string m_primary;
    bool m_coordinated;
    ScalarSink& m_sink;
    std::unordered_map<std::string, TaskState> m_tasks;
};

} // namespace strata::app::tensorboard
