// MetricsStore: a task's per-step series, from its live `step` events and its step records.
#include "app/metrics/metrics_store.h"
#include "app/metrics/metrics_store_parts.h"

#include <algorithm>
#include <cmath>

namespace strata::app {

using namespace store_parts;

namespace {
// The task's per-step series a step event and a step record both give, each with its field bit:
// one list for the live windows and the records, so that they never disagree on which is which.
template<typename Draw>
void drawStepFields(TaskData& td, const StepEvent& step, const Draw& draw)
{
    draw(td.loss, step.loss, kLossField);
    draw(td.stepMs, step.stepMs, kStepMsField);
    draw(td.computeMs, step.computeMs, kComputeMsField);
    draw(td.commMs, step.commMs, kCommMsField);
    draw(td.inputMs, step.inputMs, kInputMsField);
    draw(td.stalenessMean, step.stalenessMean, kStalenessMeanField);
    draw(td.stalenessMax, step.stalenessMax, kStalenessMaxField);
}
} // namespace

void MetricsStore::applyStep(TaskData& td, const StepEvent& step, double t)
{
    TaskData::StepRecords& records = td.records;
    // The records are ahead of the live events (they went in first): the step stays theirs.
    td.step = records.count > 0 ? std::max(td.step, step.step.value_or(td.step)) : step.step.value_or(td.step);
    const double x = double(step.globalStep.value_or(step.step.value_or(td.step)));
    // What the records drew at this step is not drawn again.
    const bool covered = x <= records.through;
    bool drew = false;
    const auto draw = [&](Series& series, double v, unsigned field) {
        if (std::isnan(v) || (covered && (records.fields & field)))
            return;
        series.append(x, float(v));
        drew = true;
    };
    drawStepFields(td, step, draw);
    if (std::isfinite(t))
        draw(td.wallSeconds, t - td.firstEventTime, kWallField);
    for (const StepEvent::Metric& metric : step.metrics)
        if (!covered || std::find(records.metrics.begin(), records.metrics.end(), metric.name) == records.metrics.end()) {
            td.metrics[metric.name].append(x, metric.value);
            drew = true;
        }
    for (const StepEvent::Replica& r : step.replicas) {
        ReplicaData& rd = replicaData(td, r.replica, r.device);
        draw(rd.loss, r.loss, kReplicaLossField);
        appendNumber(rd.samples, x, r.samples);
    }
    if (drew)
        records.liveThrough = std::max(records.liveThrough, x);
    appendNumber(td.samplesPerSec, x, step.samplesPerSec);
    if (!step.workers.empty())
        td.workers = step.workers;
    if (td.state == TaskState::Starting)
        td.state = TaskState::Running;
}

void MetricsStore::applyRecord(const QString& task, ParsedEvent& record)
{
    TaskData& td = taskData(task);
    // Its timeline even where the series skip it: a session resumed from a checkpoint runs those
    // steps again (the ring keeps the later run), and a record that came after live events
    // still tells how its step went.
    if (record.step.trace)
        td.traces.add(std::move(*record.step.trace));
    TaskData::StepRecords& records = td.records;
    const StepEvent& r = record.step;
    const int64_t step = r.step.value_or(0);
    const double x = double(r.globalStep.value_or(step));
    if (x <= records.through || x <= records.liveThrough)
        return;
    records.through = x;
    ++records.count;
    ++m_records;
    td.step = std::max(td.step, step);
    const auto draw = [&](Series& series, double v, unsigned field) {
        if (std::isnan(v))
            return;
        series.append(x, float(v));
        records.fields |= field;
    };
    drawStepFields(td, r, draw);
    // Seconds since the task's first event, as a live step's: none before that event is in.
    if (std::isfinite(record.t) && td.firstEventTime > 0)
        draw(td.wallSeconds, record.t - td.firstEventTime, kWallField);
    for (const StepEvent::Metric& metric : r.metrics) {
        td.metrics[metric.name].append(x, metric.value);
        if (std::find(records.metrics.begin(), records.metrics.end(), metric.name) == records.metrics.end())
            records.metrics.push_back(metric.name);
    }
    for (const StepEvent::Replica& replica : r.replicas)
        draw(replicaData(td, replica.replica, replica.device).loss, replica.loss, kReplicaLossField);
    if (td.state == TaskState::Starting) {
        td.state = TaskState::Running;
        noteStateChange(task);
    }
}

} // namespace strata::app
