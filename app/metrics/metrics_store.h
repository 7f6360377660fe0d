#pragma once
// MetricsStore: everything the engine processes of one run reported, kept in full: every
// step of every replica, epochs, placement, device usage, an evaluator's evaluations, logs
// and errors, and how each task ended. Fed by the launcher (raw JSON Lines) or from event files (a finished run).
//
// Every source comes down to ParsedEvents (event_parse.h) applied in one way: lines are
// parsed by the calling thread's EventParser, a Json event converted to what its line gives.
//
// Two sources give a task's per-step series: its full-resolution step records
// (steps-<task>.jsonl, one per step: StepRecordTail) and its live `step` events (one per
// window, rate-limited). The records give every step of what they carry (the loss, each
// replica's, the step time split, the training metrics, staleness, wall time); the events give
// what records lack (samples/s, a window's samples) and, beyond the last record, what they
// carry too (a run with no records: an engine before them, a remote task). A point is drawn
// from one source only and every series stays in step order (ingest() below).
//
// Threads: the ingest functions may be called from any thread (the launcher parses off the
// GUI thread when the stream is heavy; they parse outside the lock, then apply a whole
// batch under it, releasing it between slices of a few thousand items so that no reader waits
// long for a backlog); readers on the store's thread use read(), which holds the lock for the
// duration of the callback. `updated` is emitted on the store's thread, at most every
// `notifyIntervalMs` (coalesced), so a fast stream never floods the UI.

#include "app/metrics/event_parse.h"
#include "app/metrics/series.h"
#include "app/trace/step_trace_ring.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QTimer>

#include <atomic>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace strata::app {

struct Straggler; // stragglers.h
class StragglerWatch;

struct ReplicaData {
    int replica = 0;
    QString device;
    Series loss;    // x: step, y: mean loss of this replica's slice
    Series samples; // x: step, y: samples in the window
};

struct EpochRecord {
    int epoch = 0;
    int64_t step = 0;
    Json train;      // {"loss": ..., "accuracy": ...}
    Json validation; // may be null
    double seconds = 0;
};

struct DeviceData {
    QString device;
    Series utilization;  // x: step, y: 0..1
    Series variableBytes; // x: step
    // A GPU's memory in use and in all (NVML's, the whole GPU) at the latest report; NaN when
    // not reported (a CPU device, no NVML).
    double memoryUsedBytes = std::numeric_limits<double>::quiet_NaN();
    double memoryTotalBytes = std::numeric_limits<double>::quiet_NaN();
};

enum class TaskState { Starting, Running, Completed, Stopped, Failed };

// A worker lost or joined, as ParameterServer's coordinator reports it (`membership`).
struct MembershipChange {
    double time = 0; // unix seconds
    QString member;  // "worker:1"
    bool lost = false; // false: joined (again)
    QString reason;  // "unheard for 3.0 s"
};

struct TaskData {
    QString task; // "worker:0"
    TaskState state = TaskState::Starting;
    Json hello, start, placement, done; // the latest event of each type (null until seen)

    Series loss;          // x: step, y: mean training loss of the window
    Series samplesPerSec; // x: step
    Series stepMs, computeMs, commMs, inputMs; // x: step, mean per step in the window
    Series wallSeconds;   // x: step, y: seconds since the task's first event
    std::map<QString, Series> metrics; // running training metrics, x: step
    std::vector<ReplicaData> replicas;
    std::vector<DeviceData> devices;
    Series rssBytes;      // x: step
    std::vector<EpochRecord> epochs;
    std::vector<Json> checkpoints;
    // An evaluator's evaluations of the chief's checkpoints: x: the checkpoint's step, y: the
    // metric ("loss", "accuracy", ...).
    std::map<QString, Series> evaluation;
    int evaluations = 0; // `evaluation` events received

    // ParameterServer. A worker's staleness (x: the global step, as all its series), the
    // coordinator's view of every worker (its latest `workers`) and the members it lost or
    // saw join, in order; a ps task's traffic (`ps` events, x: seconds since its first event)
    // and its latest `ps` event (the totals).
    Series stalenessMean, stalenessMax;
    std::vector<StepEvent::Worker> workers;
    std::vector<MembershipChange> membership;
    Series bytesInPerSec, bytesOutPerSec, updatesPerSec;
    Json ps;

    // The store's account of the step records applied (what the series took from them).
    struct StepRecords {
        int64_t count = 0; // records applied
        double through = -std::numeric_limits<double>::infinity();     // x of the last one
        double liveThrough = -std::numeric_limits<double>::infinity(); // x of the last live step
                                                                       // drawn where records would be
        unsigned fields = 0;          // which series records carried (bits of the store's own)
        std::vector<QString> metrics; // the metrics they carried
    } records;

    // The timelines of its last steps (from its step records' `trace`), for the Timeline panel.
    StepTraceRing traces;

    int64_t step = 0;        // last step reported
    int64_t totalSteps = 0;  // from `start`
    double firstEventTime = 0, lastEventTime = 0; // unix seconds

    // How it ended (Failed: `error` holds the message: the engine's `error` event, or the
    // launcher's account of a crash or a failure to start).
    QString error;
    Json failure; // the engine's fatal `error` event, as it came (null: none)
    int exitCode = 0;
    bool crashed = false;     // ended by a signal
    bool exited = false;      // the process is gone

    // Where it runs (the cluster's node and host; empty when not known).
    QString node, host;
    // Its node cannot be heard (a remote task): it may well go on training; `unreachableWhy`
    // says since when and why.
    bool unreachable = false;
    QString unreachableWhy;
    // What a batch scheduler says of it before and between its sessions ("pending (Resources)",
    // "requeued"); empty once it runs.
    QString scheduled;
};

struct LogEntry {
    double time = 0;  // unix seconds
    QString task;
    QString level;    // info, warning, error
    QString message;
};

struct Progress {
    int64_t step = 0, totalSteps = 0;
    double fraction = 0;     // 0..1
    double etaSeconds = -1;  // -1: unknown
    double elapsedSeconds = 0;
};

class MetricsStore : public QObject {
    Q_OBJECT

public:
    explicit MetricsStore(QObject* parent = nullptr);
    ~MetricsStore() override;

    // Complete JSON Lines from `task`'s stdout. Lines that are not JSON objects are logged as
    // warnings (and kept), never dropped silently.
    void ingestLines(const QString& task, const QByteArray& lines);
    // One event, as its line would be (a value that is not an object is warned about).
    void ingest(const QString& task, const Json& event);
    // Events of `task` in order, under the lock and with one notification. An empty `task`:
    // each event's own `task` names it.
    void ingest(const QString& task, std::vector<ParsedEvent> events);
    // The same with step records of `task` (StepRecordTail), in its file's order, read since
    // the last call: each record goes in before the first live `step` event at or after its
    // step, the others after the events (the engine writes a step's record before any event
    // after it). A live step's values for what records carry are drawn only beyond the last
    // record's step; a record at or before a step already drawn (a session resumed from a
    // checkpoint repeats the steps after it, with the same values; or live events got ahead
    // of records that came late) is skipped. `task` must be named.
    void ingest(const QString& task, std::vector<ParsedEvent> events, std::vector<ParsedEvent> records);
    // What the launcher saw of the process: exit code/signal and the tail of its stderr.
    // `time`: when it ended (unix seconds; 0: now), the time of the log entry it makes, so
    // that a run rebuilt from its directory (tasks.json) logs the same time as it did live.
    void taskEnded(const QString& task, int exitCode, bool crashed, const QString& stderrTail, double time = 0);
    void taskFailedToStart(const QString& task, const QString& message, double time = 0);
    // How it ended is not known: its supervisor is gone without saying (the node's account in
    // `message`), or its node could not be reached when the run was stopped.
    void taskVanished(const QString& task, const QString& message, double time = 0);
    // Where `task` runs, shown beside it.
    void setTaskPlace(const QString& task, const QString& node, const QString& host);
    // Its node can (again) or cannot be heard; logged with `why`.
    void setTaskReachable(const QString& task, bool reachable, const QString& why);
    // What the batch scheduler says of `task` (empty: it runs); logged with `why` when it changes.
    void setTaskScheduled(const QString& task, const QString& state, const QString& why);
    // A message of the app's own about the run (not an engine's), logged at the current time.
    void appendLog(const QString& task, const QString& level, const QString& message);
    // Forgets everything (a new run).
    void clear();
    // Counts clear() calls: what was derived from the store's series is stale once it changes.
    uint64_t generation() const;

    // Every stretch of a worker being a straggler found so far (stragglers.h), in the order they
    // began; each is logged (a warning when it begins, a line when it ends) as it is found.
    std::vector<Straggler> stragglers() const;

    // Reads under the lock.
    void read(const std::function<void(const std::vector<TaskData>&, const std::vector<LogEntry>&)>& reader) const;
    // The lock held for a view's whole refresh, its reads nested inside: the view waits for the
    // ingest once instead of at each of its reads (dozens, each waiting for a slice of a
    // backlog), and all its panels show one state of the run. On the store's thread.
    [[nodiscard]] std::unique_lock<std::recursive_mutex> holdForReading() const;
    Progress progress() const;
    // Events ingested so far (all tasks).
    int64_t eventCount() const;
    // Step records applied so far (all tasks; skipped ones not counted).
    int64_t recordCount() const;
    // Total points held in all series, and the bytes they use.
    int64_t pointCount() const;
    size_t seriesBytes() const;

    void setNotifyInterval(int ms);

Q_SIGNALS:
    // Data changed (coalesced).
    void updated();
    // A log entry, an error or a task state change arrived (coalesced into `updated` too,
    // but emitted at once so the UI can show errors without waiting).
    void taskStateChanged(const QString& task);
    void logAppended();

private:
    // After a change: makes sure `updated` follows within the interval, and hands state
    // changes and log entries to deliver() at once. Callable from any thread, without the lock.
    void scheduleNotify();
    // On the store's thread: emits the immediate signals and starts the coalescing timer.
    void deliver();
    // Under the lock.
    void apply(const QString& task, const ParsedEvent& event);
    void applyStep(TaskData& td, const StepEvent& step, double t);
    // Its timeline, if any, is moved into the task's ring.
    void applyRecord(const QString& task, ParsedEvent& record);
    // Every type but `step` (unknown ones are ignored), from the event's Json.
    void applyOther(TaskData& td, const QString& task, const ParsedEvent& event);
    TaskData& taskData(const QString& task);
    // Under the lock: `task`'s state changed (taskStateChanged follows).
    void noteStateChange(const QString& task);
    // How a task ended: `record` updates its data under the lock and returns the log line
    // (level, message) to add at `time` (now when 0), or none; then the views are told.
    void endTask(const QString& task, double time,
                 const std::function<std::optional<std::pair<QString, QString>>(TaskData&)>& record);
    // Under the lock, after the tasks' steps or ends changed: judges the steps every task has
    // gone past for stragglers, and logs who became one or recovered.
    void watchStragglers();

    // The lock, counted in m_waiting while waited for, so that ingest() lets whoever waits
    // in between slices of a backlog.
    std::unique_lock<std::recursive_mutex> acquire() const;

    // Recursive: reads inside a holdForReading() take it again on the same thread.
    mutable std::recursive_mutex m_mutex;
    mutable std::atomic<int> m_waiting{0};
    std::vector<TaskData> m_tasks;
    std::vector<LogEntry> m_log;
    std::unique_ptr<StragglerWatch> m_stragglers;
    int64_t m_events = 0;
    int64_t m_records = 0;
    uint64_t m_generation = 0;
    QTimer m_notify;
    bool m_pending = false;        // data changed since the last `updated`
    bool m_deliveryPosted = false; // a deliver() is queued on the store's thread
    std::vector<QString> m_stateChanges; // tasks whose state changed since the last notify
    bool m_logChanged = false;
};

} // namespace strata::app
