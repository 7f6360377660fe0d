// MetricsStore: every event type but `step` (devices, epochs, checkpoints, evaluations, ps
// traffic, membership, logs, errors, the lifecycle).
#include "app/metrics/metrics_store.h"
#include "app/metrics/lifecycle_text.h"
#include "app/metrics/metrics_store_parts.h"

#include <algorithm>
#include <cmath>

namespace strata::app {

using namespace store_parts;

namespace {

DeviceData& deviceData(TaskData& td, const QString& device)
{
    for (DeviceData& d : td.devices)
        if (d.device == device)
            return d;
    td.devices.emplace_back();
    td.devices.back().device = device;
    return td.devices.back();
}

// A `device` event: each device's utilization, variables and memory, and the process's RSS.
void applyDevices(TaskData& td, const Json& event)
{
    const double x = double(integer(event, "step", td.step));
    const Json& devices = member(event, "devices");
    if (devices.is_array())
        for (const Json& d : devices) {
            if (!d.is_object())
                continue;
            DeviceData& dd = deviceData(td, text(d, "device", QStringLiteral("replica %1").arg(integer(d, "replica", 0))));
            appendNumber(dd.utilization, x, number(d, "utilization"));
            appendNumber(dd.variableBytes, x, number(d, "variable_bytes"));
            dd.memoryUsedBytes = number(d, "memory_used_bytes");
            dd.memoryTotalBytes = number(d, "memory_total_bytes");
        }
    appendNumber(td.rssBytes, x, number(member(event, "process"), "rss_bytes"));
}

// An `epoch` event as the task keeps it (`step`: the task's, when the event has none); its
// metrics as their numbers (null: no validation).
EpochRecord epochRecord(const Json& event, int64_t step)
{
    schema::EpochEvent defaults;
    defaults.step = step;
    const schema::EpochEvent read = schema::readEpochEvent(event, defaults);
    EpochRecord e;
    e.epoch = int(read.epoch);
    e.step = read.step;
    e.train = schema::toJson(read.train);
    e.validation = read.validation ? schema::toJson(*read.validation) : Json();
    e.seconds = read.seconds;
    return e;
}

// A `placement` event: its replicas, with their devices, before any step names them.
void applyPlacement(TaskData& td, const Json& event)
{
    td.placement = event;
    for (const schema::PlacementEvent::Replica& r : schema::readPlacementEvent(event).replicas)
        replicaData(td, int(r.replica), QString::fromStdString(r.device));
}

// An `evaluation` event: the evaluator's metrics at the chief's checkpoint.
void applyEvaluation(TaskData& td, const Json& event)
{
    const int64_t step = integer(event, "step", td.step);
    const Json& metrics = member(event, "metrics");
    if (metrics.is_object())
        for (const auto& [key, value] : metrics.items())
            if (const auto v = numberOf(value))
                td.evaluation[QString::fromStdString(key)].append(double(step), float(*v));
    ++td.evaluations;
    // The evaluator's progress is the chief's step it has evaluated.
    td.step = std::max(td.step, step);
    if (td.state == TaskState::Starting)
        td.state = TaskState::Running;
}

// A `ps` event: a ParameterServer task's traffic, x in seconds since its first event.
void applyPs(TaskData& td, const Json& event, double t)
{
    td.ps = event;
    const double x = std::isfinite(t) ? t - td.firstEventTime : 0;
    appendNumber(td.bytesInPerSec, x, number(event, "bytes_in_per_s"));
    appendNumber(td.bytesOutPerSec, x, number(event, "bytes_out_per_s"));
    appendNumber(td.updatesPerSec, x, number(event, "updates_per_s"));
    if (td.state == TaskState::Starting)
        td.state = TaskState::Running;
}

// An `error` event's message, each of its problems on a line of its own.
QString errorMessage(const Json& event)
{
    QString message = text(event, "message", QStringLiteral("unknown error"));
    const Json& problems = member(event, "problems");
    if (problems.is_array())
        for (const Json& problem : problems)
            if (problem.is_object())
                message += QStringLiteral("\n%1: %2").arg(text(problem, "path"), text(problem, "message"));
    return message;
}

} // namespace

void MetricsStore::applyOther(TaskData& td, const QString& name, const ParsedEvent& parsed)
{
    namespace ev = schema::event;
    const Json& event = parsed.json;
    const double t = parsed.t;
    const std::string_view type = parsed.type();
    if (type == ev::kDevice) {
        applyDevices(td, event);
    } else if (type == ev::kEpoch) {
        td.epochs.push_back(epochRecord(event, td.step));
    } else if (type == ev::kCheckpoint) {
        td.checkpoints.push_back(event);
    } else if (type == kEvaluation) {
        applyEvaluation(td, event);
    } else if (type == ev::kPs) {
        applyPs(td, event, t);
    } else if (type == ev::kMembership) {
        const MembershipChange change{std::isfinite(t) ? t : now(), text(event, "member"),
                                      text(event, "state") == QLatin1String("lost"), text(event, "reason")};
        if (!change.member.isEmpty()) {
            td.membership.push_back(change);
            m_log.push_back({change.time, name, change.lost ? QStringLiteral("warning") : QStringLiteral("info"),
                             change.lost ? QStringLiteral("lost %1: %2").arg(change.member, change.reason)
                                         : QStringLiteral("%1 joined").arg(change.member)});
            m_logChanged = true;
            // The member's row in the task table says so.
            noteStateChange(change.member);
        }
    } else if (type == ev::kLog) {
        m_log.push_back({t, name, text(event, "level", QStringLiteral("info")), text(event, "message")});
        m_logChanged = true;
    } else if (type == ev::kError) {
        const QString message = errorMessage(event);
        m_log.push_back({t, name, QStringLiteral("error"), message});
        m_logChanged = true;
        // A non-fatal error is reported and the process goes on.
        const auto fatal = event.find("fatal");
        if (fatal == event.end() || !fatal->is_boolean() || fatal->get<bool>()) {
            td.state = TaskState::Failed;
            td.error = message;
            td.failure = event;
        }
    } else if (type == ev::kDone) {
        td.done = event;
        td.step = std::max(td.step, integer(event, "steps", td.step));
        td.state = text(event, "status") == QLatin1String("stopped") ? TaskState::Stopped : TaskState::Completed;
    } else if (type == ev::kHello) {
        td.hello = event;
    } else if (type == ev::kStart) {
        td.start = event;
        schema::StartEvent defaults;
        defaults.totalSteps = td.totalSteps; // a start without them leaves the schedule as it was
        td.totalSteps = schema::readStartEvent(event, defaults).totalSteps;
    } else if (type == ev::kPlacement) {
        applyPlacement(td, event);
    }
    // Unknown types are ignored: later schema versions may add some.

    const QString story = lifecycleText(type, event);
    if (!story.isEmpty()) {
        m_log.push_back({std::isfinite(t) ? t : now(), name, QStringLiteral("info"), story});
        m_logChanged = true;
    }
}

} // namespace strata::app
