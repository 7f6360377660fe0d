#include "app/tensorboard/run_scalars.h"

#include "strata/schema/events.h"

#include <algorithm>
#include <cmath>

namespace strata::app::tensorboard {

namespace {

const std::string kTrain = "train";
const std::string kValidation = "validation";
const std::string kTest = "test";

bool finite(double v) { return std::isfinite(v); }

std::optional<int64_t> integerField(const Json& event, const char* key)
{
    const auto it = event.find(key);
    return it == event.end() ? std::nullopt : integerOf(*it);
}

std::optional<double> numberField(const Json& event, const char* key)
{
    const auto it = event.find(key);
    return it == event.end() ? std::nullopt : numberOf(*it);
}

const Json* objectField(const Json& event, const char* key)
{
    const auto it = event.find(key);
    return it != event.end() && it->is_object() ? &*it : nullptr;
}

} // namespace

RunScalars::RunScalars(std::string primaryTask, bool coordinated, ScalarSink& sink)
    : m_primary(std::move(primaryTask)), m_coordinated(coordinated), m_sink(sink)
{
}

RunScalars::TaskState& RunScalars::state(const std::string& task) { return m_tasks[task]; }

const std::string& RunScalars::replicaLossTag(TaskState& s, int replica)
{
    while (s.replicaLossTags.size() <= size_t(replica))
        s.replicaLossTags.push_back("loss/replica_" + std::to_string(s.replicaLossTags.size()));
    return s.replicaLossTags[size_t(replica)];
}

void RunScalars::put(const std::string& run, const std::string& tag, int64_t step, double t, double value)
{
    if (finite(value))
        m_sink.scalar(run, tag, step, t, value);
}

void RunScalars::putObject(const std::string& run, const schema::MetricValues& values, const char* prefix,
                           const char* suffix, int64_t step, double t)
{
    for (const auto& [name, value] : values)
        put(run, prefix + name + suffix, step, t, value);
}

void RunScalars::addEvent(const std::string& task, const ParsedEvent& event)
{
    const double t = event.t;
    if (!finite(t)) // not an event of the engine's (each has its time)
        return;
    TaskState& s = state(task);
    s.lastTime = t;
    const bool primary = task == m_primary;
    if (event.kind == ParsedEvent::Kind::Step) {
        addLiveStep(task, s, event.step, t, primary);
        return;
    }
    if (event.kind != ParsedEvent::Kind::Other)
        return;
    const Json& e = event.json;
    const std::string_view type = event.type();
    namespace ev = schema::event;
    if (type == ev::kStart) {
        s.sessionStart = schema::readStartEvent(e).resumedFromStep.value_or(0);
    } else if (type == ev::kEpoch && primary) {
        addEpoch(s, e, t);
    } else if (type == ev::kDone && primary) {
        const Json* test = objectField(e, "test");
        if (const std::optional<int64_t> steps = integerField(e, "steps"); test && steps)
            putObject(kTest, schema::readMetricValues(*test), "evaluation_", "_vs_iterations", *steps, t);
    } else if (type == ev::kEvaluation) {
        const Json* metrics = objectField(e, "metrics");
        if (const std::optional<int64_t> step = integerField(e, "step"); metrics && step)
            putObject(task, schema::readMetricValues(*metrics), "evaluation_", "_vs_iterations", *step, t);
    } else if (type == ev::kDevice) {
        addDevices(task, e, t);
    } else if (type == ev::kCheckpoint) {
        const std::optional<int64_t> step = integerField(e, "step");
        if (const std::optional<double> ms = numberField(e, "ms"); step && ms)
            put(task, "checkpoint/write_ms", *step, t, *ms);
    } else if (type == ev::kPs) {
        // About once a second, no step of its own: numbered in order.
        const int64_t report = ++s.psReports;
        for (const auto& [field, tag] : {std::pair{"bytes_in_per_s", "parameter_server/bytes_in_per_second"},
                                         std::pair{"bytes_out_per_s", "parameter_server/bytes_out_per_second"},
                                         std::pair{"updates_per_s", "parameter_server/updates_per_second"}})
            if (const std::optional<double> v = numberField(e, field))
                put(task, tag, report, t, *v);
    }
}

// A live step: its time (for the records' wall times), the learning rate, the running metrics
// (of the primary task) and the throughput.
void RunScalars::addLiveStep(const std::string& task, TaskState& s, const StepEvent& step, double t, bool primary)
{
    if (!step.step)
        return;
    if (s.liveTimes.empty() || *step.step > s.liveTimes.back().first) // a resumed session's repeats left out
        s.liveTimes.emplace_back(*step.step, t);
    if (finite(step.lr))
        s.lr = step.lr;
    if (primary) // the epoch's running metrics, as Keras logs them after each batch
        for (const StepEvent::Metric& m : step.metrics)
            put(kTrain, "batch_" + m.name.toStdString(), *step.step, t, m.value);
    put(task, "throughput/samples_per_second", *step.step, t, step.samplesPerSec);
}

// The primary task's epoch, as Keras logs it: its metrics, learning rate, steps per second, and
// its validation.
void RunScalars::addEpoch(TaskState& s, const Json& event, double t)
{
    // An epoch without its number or step has no place on the axes: INT64_MIN stands for the
    // field that did not read (no engine numbers an epoch or step so).
    schema::EpochEvent unread;
    unread.epoch = unread.step = INT64_MIN;
    const schema::EpochEvent e = schema::readEpochEvent(event, unread);
    if (e.epoch == INT64_MIN || e.step == INT64_MIN)
        return;
    putObject(kTrain, e.train, "epoch_", "", e.epoch, t);
    put(kTrain, "epoch_learning_rate", e.epoch, t, s.lr);
    // Keras' steps_per_second: the steps this session ran in the epoch over its time.
    const int64_t steps = e.step - std::max(s.lastEpochStep, s.sessionStart);
    if (e.seconds > 0 && steps > 0)
        put(kTrain, "epoch_steps_per_second", e.epoch, t, double(steps) / e.seconds);
    s.lastEpochStep = e.step;
    if (e.validation) {
        putObject(kValidation, *e.validation, "epoch_", "", e.epoch, t);
        // Keras' on_test_end after the validation of an epoch, at the optimizer's iterations.
        putObject(kValidation, *e.validation, "evaluation_", "_vs_iterations", e.step, t);
    }
}

// A `device` event: each replica's utilization and memory, and the process's.
void RunScalars::addDevices(const std::string& task, const Json& e, double t)
{
    const std::optional<int64_t> step = integerField(e, "step");
    if (!step)
        return;
    if (const auto devices = e.find("devices"); devices != e.end() && devices->is_array())
        for (const Json& d : *devices) {
            const std::optional<int64_t> replica = d.is_object() ? integerField(d, "replica") : std::nullopt;
            if (!replica)
                continue;
            const std::string prefix = "device/replica_" + std::to_string(*replica);
            if (const std::optional<double> u = numberField(d, "utilization"))
                put(task, prefix + "_utilization", *step, t, *u);
            if (const std::optional<double> used = numberField(d, "memory_used_bytes"))
                put(task, prefix + "_memory_used_bytes", *step, t, *used);
        }
    if (const Json* process = objectField(e, "process"))
        if (const std::optional<double> rss = numberField(*process, "rss_bytes"))
            put(task, "memory/rss_bytes", *step, t, *rss);
}

void RunScalars::addStepRecord(const std::string& task, const ParsedEvent& record)
{
    if (record.kind != ParsedEvent::Kind::Step || !record.step.step)
        return;
    TaskState& s = state(task);
    const StepEvent& r = record.step;
    const int64_t step = *r.step;
    if (step <= s.lastRecordStep)
        return;
    s.lastRecordStep = step;
    double t = record.t;
    if (!finite(t)) { // a record of an engine before records had their time
        const auto covering = std::lower_bound(s.liveTimes.begin(), s.liveTimes.end(), step,
                                               [](const auto& live, int64_t at) { return live.first < at; });
        t = covering != s.liveTimes.end() ? covering->second : finite(s.lastTime) ? s.lastTime : 0.0;
    }
    put(task, "loss/step", step, t, r.loss);
    for (const StepEvent::Replica& replica : r.replicas)
        put(task, replicaLossTag(s, replica.replica), step, t, replica.loss);
    put(task, "learning_rate", step, t, r.lr);
    const bool coordinator = m_coordinated && task == m_primary;
    if (!coordinator) { // the coordinator's records carry the times of the worker that ran the step
        put(task, "step_time/step_ms", step, t, r.stepMs);
        put(task, "step_time/compute_ms", step, t, r.computeMs);
        put(task, "step_time/comm_ms", step, t, r.commMs);
        put(task, "step_time/input_ms", step, t, r.inputMs);
    }
    if (r.globalStep)
        put(task, "parameter_server/global_step", step, t, double(*r.globalStep));
    put(task, "parameter_server/staleness_mean", step, t, r.stalenessMean);
    put(task, "parameter_server/staleness_max", step, t, r.stalenessMax);
    if (task != m_primary)
        return;
    // Keras' batch_loss: the epoch's running mean, each step weighted by its samples.
    const int64_t epoch = r.epoch.value_or(s.epoch);
    if (epoch != s.epoch) {
        s.epoch = epoch;
        s.lossSum = s.samples = 0;
    }
    if (finite(r.loss)) {
        const double weight = finite(r.samples) && r.samples > 0 ? r.samples : 1.0;
        s.lossSum += r.loss * weight;
        s.samples += weight;
        put(kTrain, "batch_loss", step, t, s.lossSum / s.samples);
    }
    if (!coordinator && finite(r.stepMs) && r.stepMs > 0)
        put(kTrain, "batch_steps_per_second", step, t, 1000.0 / r.stepMs);
}

} // namespace strata::app::tensorboard
