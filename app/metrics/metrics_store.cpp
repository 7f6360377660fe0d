#include "app/metrics/metrics_store.h"

#include "strata/schema/events.h"

#include <QDateTime>
#include <QThread>

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <utility>

namespace strata::app {

namespace {

constexpr int kDefaultNotifyMs = 40;
constexpr int kWarningPrefix = 80; // characters of a bad line quoted in the log
constexpr size_t kLockedItems = 4096; // events and records applied under the lock at a time
// The ETA's rate is taken over the last second of steps and at least this many points (a
// point per step from step records, per window from live events).
constexpr int kRateWindow = 10;
constexpr double kRateSeconds = 1.0;
// An evaluator task's report on one checkpoint of the chief (its step, epoch, checkpoint,
// metrics, examples, ms).
constexpr std::string_view kEvaluation = schema::event::kEvaluation;

// Field readers that never throw: an event with a field of the wrong type is still stored
// with what is usable in it.
double number(const Json& j, const char* key, double fallback = std::numeric_limits<double>::quiet_NaN())
{
    const auto it = j.find(key);
    return it != j.end() ? numberOf(*it).value_or(fallback) : fallback;
}

int64_t integer(const Json& j, const char* key, int64_t fallback)
{
    const auto it = j.find(key);
    return it != j.end() ? integerOf(*it).value_or(fallback) : fallback;
}

QString text(const Json& j, const char* key, const QString& fallback = {})
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? QString::fromStdString(it->get_ref<const std::string&>()) : fallback;
}

const Json& member(const Json& j, const char* key)
{
    static const Json null;
    const auto it = j.find(key);
    return it != j.end() ? *it : null;
}

// NaN: nothing to add (the field was absent or not a number).
void appendNumber(Series& series, double x, double v)
{
    if (!std::isnan(v))
        series.append(x, float(v));
}

// The series step records carry (TaskData::StepRecords::fields): a live step's value for one
// of them is not drawn where records drew it.
enum RecordField : unsigned {
    kLossField = 1u << 0,
    kReplicaLossField = 1u << 1,
    kStepMsField = 1u << 2,
    kComputeMsField = 1u << 3,
    kCommMsField = 1u << 4,
    kInputMsField = 1u << 5,
    kStalenessMeanField = 1u << 6,
    kStalenessMaxField = 1u << 7,
    kWallField = 1u << 8,
};

ReplicaData& replicaData(TaskData& td, int replica, const QString& device)
{
    // Kept in replica order; a handful at most.
    auto it = std::lower_bound(td.replicas.begin(), td.replicas.end(), replica,
                               [](const ReplicaData& r, int index) { return r.replica < index; });
    if (it == td.replicas.end() || it->replica != replica) {
        it = td.replicas.emplace(it);
        it->replica = replica;
    }
    if (!device.isEmpty() && it->device != device)
        it->device = device;
    return *it;
}

DeviceData& deviceData(TaskData& td, const QString& device)
{
    for (DeviceData& d : td.devices)
        if (d.device == device)
            return d;
    td.devices.emplace_back();
    td.devices.back().device = device;
    return td.devices.back();
}

template<typename Fn>
void forEachSeries(const TaskData& td, Fn fn)
{
    for (const Series* s : {&td.loss, &td.samplesPerSec, &td.stepMs, &td.computeMs, &td.commMs, &td.inputMs,
                            &td.wallSeconds, &td.rssBytes, &td.stalenessMean, &td.stalenessMax, &td.bytesInPerSec,
                            &td.bytesOutPerSec, &td.updatesPerSec})
        fn(*s);
    for (const auto& [name, s] : td.metrics)
        fn(s);
    for (const auto& [name, s] : td.evaluation)
        fn(s);
    for (const ReplicaData& r : td.replicas) {
        fn(r.loss);
        fn(r.samples);
    }
    for (const DeviceData& d : td.devices) {
        fn(d.utilization);
        fn(d.variableBytes);
    }
}

// "loss 0.3420, accuracy 0.8759" from {"loss": ..., "accuracy": ...}; `prefix` before each name.
QString metricsText(const Json& metrics, const QString& prefix = {})
{
    QStringList parts;
    if (metrics.is_object())
        for (const auto& [key, value] : metrics.items())
            if (value.is_number())
                parts << QStringLiteral("%1%2 %3").arg(prefix, QString::fromStdString(key)).arg(value.get<double>(), 0, 'f', 4);
    return parts.join(QStringLiteral(", "));
}

// The log line of a lifecycle event (hello, start, epoch, checkpoint, done), so that the
// log tells the run's story, not only its problems.
QString lifecycleText(std::string_view type, const Json& e)
{
    namespace ev = schema::event;
    if (type == ev::kHello) {
        QStringList devices;
        for (const Json& d : member(e, "devices"))
            if (d.is_object())
                devices << text(d, "name");
        return QStringLiteral("engine %1 on %2 (pid %3), devices: %4")
            .arg(text(e, "version", "?"), text(e, "host", "?"))
            .arg(integer(e, "pid", 0))
            .arg(devices.isEmpty() ? QStringLiteral("none reported") : devices.join(", "));
    }
    if (type == ev::kStart) {
        QString line = QStringLiteral("training %1 under %2: %3 replica(s), %4 epoch(s) of %5 steps, global batch %6")
                           .arg(text(e, "experiment", "?"), text(e, "strategy", "?"))
                           .arg(integer(e, "replicas", 1))
                           .arg(integer(e, "epochs", 0))
                           .arg(integer(e, "steps_per_epoch", 0))
                           .arg(integer(e, "batch_size", 0));
        if (const std::optional<int64_t> resumed = integerOf(member(e, "resumed_from_step")))
            line += QStringLiteral(", resumed from the checkpoint at step %1").arg(*resumed);
        return line;
    }
    if (type == ev::kEpoch) {
        QString line = QStringLiteral("epoch %1/%2: %3").arg(integer(e, "epoch", 0) + 1).arg(integer(e, "epochs", 0))
                           .arg(metricsText(member(e, "train")));
        const QString validation = metricsText(member(e, "validation"), QStringLiteral("val_"));
        if (!validation.isEmpty())
            line += QStringLiteral(", ") + validation;
        return line + QStringLiteral(" (%1 s)").arg(number(e, "seconds", 0), 0, 'f', 1);
    }
    if (type == ev::kCheckpoint)
        return QStringLiteral("checkpoint at step %1: %2").arg(integer(e, "step", 0)).arg(text(e, "path"));
    if (type == kEvaluation)
        return QStringLiteral("evaluated the checkpoint of step %1 (epoch %2): %3 (%4 examples, %5 ms)")
            .arg(integer(e, "step", 0))
            .arg(integer(e, "epoch", 0) + 1)
            .arg(metricsText(member(e, "metrics")))
            .arg(integer(e, "examples", 0))
            .arg(number(e, "ms", 0), 0, 'f', 0);
    if (type == ev::kDone && member(e, "evaluations").is_number()) {
        // An evaluator's end: it trained nothing, and wrote no checkpoint.
        const int64_t n = integer(e, "evaluations", 0);
        return text(e, "status") == QLatin1String("stopped")
                   ? QStringLiteral("stopped after %1 evaluation(s)").arg(n)
                   : QStringLiteral("completed %1 evaluation(s)").arg(n);
    }
    if (type == ev::kDone) {
        const bool stopped = text(e, "status") == QLatin1String("stopped");
        QString line = stopped ? QStringLiteral("stopped at step %1 (a checkpoint was written: run again to resume)")
                                     .arg(integer(e, "steps", 0))
                               : QStringLiteral("completed %1 steps in %2 s")
                                     .arg(integer(e, "steps", 0))
                                     .arg(number(e, "wall_seconds", 0), 0, 'f', 1);
        const QString test = metricsText(member(e, "test"));
        if (!test.isEmpty())
            line += QStringLiteral("; test %1").arg(test);
        return line;
    }
    return {};
}

double now()
{
    return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
}

} // namespace

MetricsStore::MetricsStore(QObject* parent) : QObject(parent), m_notify(this)
{
    m_notify.setSingleShot(true);
    m_notify.setInterval(kDefaultNotifyMs);
    connect(&m_notify, &QTimer::timeout, this, [this] {
        {
            const auto lock = acquire();
            m_pending = false;
        }
        Q_EMIT updated();
    });
}

MetricsStore::~MetricsStore() = default;

void MetricsStore::ingestLines(const QString& task, const QByteArray& lines)
{
    ingestLines(task, lines, {});
}

void MetricsStore::ingestLines(const QString& task, const QByteArray& lines, std::vector<ParsedEvent> records)
{
    // Parsed outside the lock: it is the expensive part, and readers must not wait for it.
    std::vector<ParsedEvent> events;
    EventParser::forThisThread().parseLines(lines.constData(), size_t(lines.size()), events);
    ingest(task, std::move(events), std::move(records));
}

void MetricsStore::ingest(const QString& task, const Json& event)
{
    std::vector<ParsedEvent> events;
    events.push_back(EventParser::forThisThread().fromJson(event));
    ingest(task, std::move(events));
}

void MetricsStore::ingest(const QString& task, std::vector<ParsedEvent> events)
{
    ingest(task, std::move(events), {});
}

void MetricsStore::ingest(const QString& task, std::vector<ParsedEvent> events, std::vector<ParsedEvent> records)
{
    if (events.empty() && records.empty())
        return;
    {
        auto lock = acquire();
        // A backlog of records (a run followed again, an app that fell behind) is tens of
        // thousands: the readers get the lock between slices of it, told that it grew.
        size_t applied = 0;
        const auto slice = [&] {
            if (++applied % kLockedItems == 0) {
                lock.unlock();
                scheduleNotify();
                // Whoever waits for the lock (the window reading) takes it first: relocking at
                // once would mostly win it back, and the window would wait for the whole backlog.
                while (m_waiting.load(std::memory_order_acquire) > 0)
                    std::this_thread::yield();
                lock.lock();
            }
        };
        size_t next = 0; // the first record not applied
        const auto recordsThrough = [&](int64_t step) {
            for (; next < records.size() && records[next].step.step.value_or(0) <= step; ++next) {
                applyRecord(task, records[next]);
                slice();
            }
        };
        for (const ParsedEvent& event : events) {
            if (event.kind == ParsedEvent::Kind::Step && event.step.step)
                recordsThrough(*event.step.step);
            slice();
            if (event.kind != ParsedEvent::Kind::NotAnEvent) {
                ++m_events;
                apply(task, event);
            } else {
                const QString quoted = QString::fromUtf8(event.line.left(kWarningPrefix));
                m_log.push_back({now(), task, QStringLiteral("warning"),
                                 QStringLiteral("%1: not a JSON event: %2%3")
                                     .arg(task, quoted, event.line.size() > kWarningPrefix ? QStringLiteral("…") : QString())});
                m_logChanged = true;
            }
        }
        recordsThrough(std::numeric_limits<int64_t>::max());
    }
    scheduleNotify();
}

void MetricsStore::noteStateChange(const QString& task)
{
    if (std::find(m_stateChanges.begin(), m_stateChanges.end(), task) == m_stateChanges.end())
        m_stateChanges.push_back(task);
}

TaskData& MetricsStore::taskData(const QString& task)
{
    for (TaskData& td : m_tasks)
        if (td.task == task)
            return td;
    m_tasks.emplace_back();
    m_tasks.back().task = task;
    return m_tasks.back();
}

void MetricsStore::apply(const QString& taskName, const ParsedEvent& event)
{
    const QString name = taskName.isEmpty() ? event.task.value_or(QStringLiteral("?")) : taskName;
    TaskData& td = taskData(name);
    const TaskState stateBefore = td.state;

    const double t = event.t;
    if (std::isfinite(t)) {
        if (td.firstEventTime == 0)
            td.firstEventTime = t;
        td.lastEventTime = std::max(td.lastEventTime, t);
    }
    if (event.kind == ParsedEvent::Kind::Step)
        applyStep(td, event.step, t);
    else
        applyOther(td, name, event);

    if (td.state != stateBefore)
        noteStateChange(name);
}

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

void MetricsStore::applyRecord(const QString& task, const ParsedEvent& record)
{
    TaskData& td = taskData(task);
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

void MetricsStore::applyOther(TaskData& td, const QString& name, const ParsedEvent& parsed)
{
    namespace ev = schema::event;
    const Json& event = parsed.json;
    const double t = parsed.t;
    const std::string_view type = parsed.type();
    if (type == ev::kDevice) {
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
    } else if (type == ev::kEpoch) {
        EpochRecord e;
        e.epoch = int(integer(event, "epoch", 0));
        e.step = integer(event, "step", td.step);
        e.train = member(event, "train");
        e.validation = member(event, "validation");
        e.seconds = number(event, "seconds", 0);
        td.epochs.push_back(std::move(e));
    } else if (type == ev::kCheckpoint) {
        td.checkpoints.push_back(event);
    } else if (type == kEvaluation) {
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
    } else if (type == ev::kPs) {
        td.ps = event;
        const double x = std::isfinite(t) ? t - td.firstEventTime : 0;
        appendNumber(td.bytesInPerSec, x, number(event, "bytes_in_per_s"));
        appendNumber(td.bytesOutPerSec, x, number(event, "bytes_out_per_s"));
        appendNumber(td.updatesPerSec, x, number(event, "updates_per_s"));
        if (td.state == TaskState::Starting)
            td.state = TaskState::Running;
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
        QString message = text(event, "message", QStringLiteral("unknown error"));
        const Json& problems = member(event, "problems");
        if (problems.is_array())
            for (const Json& problem : problems)
                if (problem.is_object())
                    message += QStringLiteral("\n%1: %2").arg(text(problem, "path"), text(problem, "message"));
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
        td.totalSteps = integer(event, "total_steps", td.totalSteps);
    } else if (type == ev::kPlacement) {
        td.placement = event;
        const Json& replicas = member(event, "replicas");
        if (replicas.is_array())
            for (const Json& r : replicas)
                if (r.is_object())
                    replicaData(td, int(integer(r, "replica", 0)), text(r, "device"));
    }
    // Unknown types are ignored: later schema versions may add some.

    const QString story = lifecycleText(type, event);
    if (!story.isEmpty()) {
        m_log.push_back({std::isfinite(t) ? t : now(), name, QStringLiteral("info"), story});
        m_logChanged = true;
    }
}

void MetricsStore::endTask(const QString& task, double time,
                           const std::function<std::optional<std::pair<QString, QString>>(TaskData&)>& record)
{
    if (time <= 0)
        time = now();
    {
        const auto lock = acquire();
        TaskData& td = taskData(task);
        td.exited = true;
        if (const auto line = record(td))
            m_log.push_back({time, task, line->first, line->second});
        m_logChanged = true;
        noteStateChange(task);
    }
    scheduleNotify();
}

void MetricsStore::taskEnded(const QString& task, int exitCode, bool crashed, const QString& stderrTail, double time)
{
    endTask(task, time, [&](TaskData& td) -> std::optional<std::pair<QString, QString>> {
        td.exitCode = exitCode;
        td.crashed = crashed;
        const QString how = crashed ? QStringLiteral("%1 was killed by signal %2").arg(task).arg(exitCode)
                                    : QStringLiteral("%1 exited with status %2").arg(task).arg(exitCode);
        const QString tail = stderrTail.trimmed();
        // A failed task's stderr ends with the error it already sent as an event: said once.
        const bool repeats = td.state == TaskState::Failed && !td.error.isEmpty() && tail.contains(td.error);
        const QString account = tail.isEmpty() || repeats ? how : how + QStringLiteral(":\n") + tail;
        if (!td.done.is_null()) {
            // It finished and said so; only an unusual exit is worth a line.
            if (crashed || exitCode != 0)
                return std::pair(QStringLiteral("warning"), account);
            return std::nullopt;
        }
        // A failed task's own error event already says why: it is kept, and the exit logged.
        if (td.state != TaskState::Failed) {
            td.state = TaskState::Failed;
            td.error = account;
        }
        return std::pair(QStringLiteral("error"), account);
    });
}

void MetricsStore::taskFailedToStart(const QString& task, const QString& message, double time)
{
    endTask(task, time, [&](TaskData& td) {
        td.state = TaskState::Failed;
        td.error = message;
        return std::optional(std::pair(QStringLiteral("error"), message));
    });
}

void MetricsStore::taskVanished(const QString& task, const QString& message, double time)
{
    endTask(task, time, [&](TaskData& td) {
        td.unreachable = false;
        const QString account = QStringLiteral("%1: %2").arg(task, message);
        if (td.done.is_null() && td.state != TaskState::Failed) {
            td.state = TaskState::Failed;
            td.error = account;
        }
        return std::optional(std::pair(QStringLiteral("error"), account));
    });
}

void MetricsStore::setTaskPlace(const QString& task, const QString& node, const QString& host)
{
    {
        const auto lock = acquire();
        TaskData& td = taskData(task);
        td.node = node;
        td.host = host;
        noteStateChange(task);
    }
    scheduleNotify();
}

void MetricsStore::setTaskReachable(const QString& task, bool reachable, const QString& why)
{
    {
        const auto lock = acquire();
        TaskData& td = taskData(task);
        if (td.unreachable == !reachable)
            return;
        td.unreachable = !reachable;
        td.unreachableWhy = reachable ? QString() : why;
        m_log.push_back({now(), task, reachable ? QStringLiteral("info") : QStringLiteral("warning"), why});
        m_logChanged = true;
        noteStateChange(task);
    }
    scheduleNotify();
}

void MetricsStore::appendLog(const QString& task, const QString& level, const QString& message)
{
    {
        const auto lock = acquire();
        m_log.push_back({now(), task, level, message});
        m_logChanged = true;
    }
    scheduleNotify();
}

void MetricsStore::clear()
{
    {
        const auto lock = acquire();
        m_tasks.clear();
        m_log.clear();
        m_events = 0;
        m_records = 0;
        ++m_generation;
        m_stateChanges.clear();
        m_logChanged = true;
    }
    scheduleNotify();
}

std::unique_lock<std::mutex> MetricsStore::acquire() const
{
    ++m_waiting;
    std::unique_lock lock(m_mutex);
    --m_waiting;
    return lock;
}

void MetricsStore::read(
    const std::function<void(const std::vector<TaskData>&, const std::vector<LogEntry>&)>& reader) const
{
    const auto lock = acquire();
    reader(m_tasks, m_log);
}

Progress MetricsStore::progress() const
{
    const auto lock = acquire();
    Progress p;
    if (m_tasks.empty())
        return p;
    double first = std::numeric_limits<double>::infinity(), last = 0;
    bool running = false, allFinished = true;
    for (const TaskData& td : m_tasks) {
        p.step = std::max(p.step, td.step);
        p.totalSteps = std::max(p.totalSteps, td.totalSteps);
        if (td.firstEventTime > 0)
            first = std::min(first, td.firstEventTime);
        last = std::max(last, td.lastEventTime);
        const bool active = !td.exited && (td.state == TaskState::Starting || td.state == TaskState::Running);
        running = running || active;
        allFinished = allFinished && td.state == TaskState::Completed;
        // Remaining steps at the recent rate (wall seconds per step).
        const Series& wall = td.wallSeconds;
        if (active && td.totalSteps > 0 && wall.size() >= 2) {
            const int64_t n = wall.size();
            // The first point within kRateSeconds of the last (wall times do not decrease).
            int64_t from = 0;
            for (int64_t to = n - 1; from < to;) {
                const int64_t mid = from + (to - from) / 2;
                if (double(wall.y(mid)) < double(wall.y(n - 1)) - kRateSeconds)
                    from = mid + 1;
                else
                    to = mid;
            }
            from = std::min(from, std::max<int64_t>(0, n - 1 - kRateWindow));
            const double steps = wall.x(n - 1) - wall.x(from);
            const double seconds = double(wall.y(n - 1)) - double(wall.y(from));
            if (steps > 0 && seconds >= 0) {
                const double eta = double(std::max<int64_t>(0, td.totalSteps - td.step)) * seconds / steps;
                p.etaSeconds = std::max(p.etaSeconds, eta);
            }
        }
    }
    if (allFinished)
        p.etaSeconds = 0;
    if (p.totalSteps > 0)
        p.fraction = std::clamp(double(p.step) / double(p.totalSteps), 0.0, 1.0);
    if (std::isfinite(first))
        p.elapsedSeconds = std::max(0.0, (running ? now() : last) - first);
    return p;
}

uint64_t MetricsStore::generation() const
{
    const auto lock = acquire();
    return m_generation;
}

int64_t MetricsStore::eventCount() const
{
    const auto lock = acquire();
    return m_events;
}

int64_t MetricsStore::recordCount() const
{
    const auto lock = acquire();
    return m_records;
}

int64_t MetricsStore::pointCount() const
{
    const auto lock = acquire();
    int64_t points = 0;
    for (const TaskData& td : m_tasks)
        forEachSeries(td, [&](const Series& s) { points += s.size(); });
    return points;
}

size_t MetricsStore::seriesBytes() const
{
    const auto lock = acquire();
    size_t bytes = 0;
    for (const TaskData& td : m_tasks)
        forEachSeries(td, [&](const Series& s) { bytes += s.memoryBytes(); });
    return bytes;
}

void MetricsStore::setNotifyInterval(int ms)
{
    m_notify.setInterval(std::max(ms, 0));
}

void MetricsStore::scheduleNotify()
{
    bool post = false;
    {
        const auto lock = acquire();
        const bool urgent = !m_stateChanges.empty() || m_logChanged;
        const bool wasPending = m_pending;
        m_pending = true;
        // One queued deliver() at a time: a producer thread never floods the event queue.
        if (!m_deliveryPosted && (urgent || !wasPending)) {
            m_deliveryPosted = true;
            post = true;
        }
    }
    if (!post)
        return;
    if (QThread::currentThread() == thread())
        deliver();
    else
        QMetaObject::invokeMethod(this, [this] { deliver(); }, Qt::QueuedConnection);
}

void MetricsStore::deliver()
{
    std::vector<QString> changes;
    bool logChanged = false, pending = false;
    {
        const auto lock = acquire();
        m_deliveryPosted = false;
        changes.swap(m_stateChanges);
        logChanged = std::exchange(m_logChanged, false);
        pending = m_pending;
    }
    for (const QString& task : changes)
        Q_EMIT taskStateChanged(task);
    if (logChanged)
        Q_EMIT logAppended();
    if (pending && !m_notify.isActive())
        m_notify.start();
}

} // namespace strata::app
