#pragma once
// LaunchBackend: what depends on where a task runs. The JobLauncher (job_launcher.h) plans a
// job, keeps each task's state (job/launch_task.h), reads what it sends (job/task_stream.h)
// and decides how the job ends (job/job_end_policy.h); each task is run by the backend whose
// runs() takes it: the node checks before a launch, the task's front process, the files kept
// of it here, whether and how it is followed again when its front process ends. Every task is
// started by `strata-engine start` and followed again by `strata-engine attach` on its node,
// whichever backend runs it.
//
// Backends: local/ (this machine, a QProcess per task), ssh/ (a remote node, an exec
// channel of its SSH connection) and slurm/ (a Slurm batch job, followed from the login node). A new one implements this interface in a folder of its
// own and is listed in BackendSet (backend_set.h); ssh/ is the example to copy (README.md).
//
// Threads: the launcher's (GUI) thread.

#include "app/launch/job/launch_task.h"
#include "app/launch/job/task_stream.h"

#include <QList>
#include <QObject>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

namespace strata::app {

class MetricsStore;
struct NodeReport;
struct ReplayPosition;
struct TaskPlace;

// What a backend asks of the launcher that runs it.
class LaunchHost {
public:
    virtual MetricsStore& store() = 0;
    virtual const QString& runDir() const = 0;
    virtual const Json& experiment() const = 0;
    virtual const QString& localEngine() const = 0;
    // The tasks are being followed (started or attached, not yet finished).
    virtual bool isFollowing() const = 0;
    // Follows `task` again (`strata-engine attach` from where what arrived ends).
    virtual void follow(LaunchTask& task) = 0;
    // Where the tasks' files line up changed: the launch record (nodes.json) is written again.
    virtual void placesChanged() = 0;
    // `task` ended without reporting its end: its batch job was cancelled or failed before it
    // ran (`ran` false), or its node was lost (`ran`). Its end is `why`.
    virtual void endTask(LaunchTask& task, const QString& why, bool ran) = 0;
    // What the scheduler told of the run's batch job ("Slurm job 12: PENDING (Resources)").
    virtual void batchJobChanged(const QString& account) = 0;
    // `task` ended as `end` says (an exit its backend held back).
    virtual void endTask(LaunchTask& task, const TaskEnd& end) = 0;

protected:
    ~LaunchHost() = default;
};

// Where `strata-engine attach` starts in the node's files; steps -1: records not relayed.
struct FollowFrom {
    qint64 events = 0, errors = 0, steps = -1; // errors: the stderr file
};

class LaunchBackend : public QObject {
    Q_OBJECT

public:
    explicit LaunchBackend(LaunchHost& host, QObject* parent = nullptr) : QObject(parent), m_host(host) {}

    // Whether this backend runs `task`.
    virtual bool runs(const PlannedTask& task) const = 0;
    // Where the task runs, as the run history names it.
    virtual QString hostText(const PlannedTask& task) const = 0;

    // Launching. Before anything is created: false with the reason when `task` cannot be
    // started from here (`enginePath`: the engine the launch was given).
    virtual bool canStart(const PlannedTask& task, const QString& enginePath, QString* error) const;
    // Whether the nodes of its tasks are checked before anything starts: check() then begins
    // it, and `checked` follows.
    virtual bool checksNodes() const { return false; }
    virtual void check(const Json& /*experiment*/, const QString& /*localEngine*/) {}
    // The launch was called off or failed: the check's resources go.
    virtual void cancelCheck() {}
    // The reports of its last check; null without one.
    virtual const QList<NodeReport>* nodeReports() const { return nullptr; }
    // `count` free ports on `host` that its check found; nullopt when it has none for it.
    virtual std::optional<QList<int>> checkedFreePorts(const QString& host, int count) const;

    // A run: its tasks (the launcher's, alive until forget()); a launch calls begin() before
    // they start and launched() after `started`; a launch and an attach call watch() once
    // they are started or followed.
    void take(LaunchTask& task) { m_tasks.push_back(&task); }
    bool hasTasks() const { return !m_tasks.empty(); }
    virtual void forget() { m_tasks.clear(); }
    virtual void begin() {}
    virtual void watch() {}
    virtual void launched() {}
    // The run is over: what it kept open goes.
    virtual void finish() {}

    // Whether the backend starts its tasks itself, as one batch job, rather than by a front
    // process `strata-engine start` per task: the launch then calls submit() once, with the
    // job's token and the flags each task is started with, and the backend follows each task
    // (LaunchHost::follow) once it runs.
    virtual bool submitsJob() const { return false; }
    virtual void submit(const QByteArray& /*token*/, const QString& /*launchId*/, const QStringList& /*taskFlags*/) {}
    // Stop was asked for the whole run (before its tasks are asked one by one).
    virtual void stopping() {}
    // `task` reported its exit, but another session of it follows (its job requeued): it is
    // followed again then rather than ended.
    virtual bool continuesAfterExit(const LaunchTask&) { return false; }

    // A task. `strata-engine start`'s flags of its own.
    virtual QStringList startFlags() const { return {}; }
    // Whether its follower frames step records among the events (task_stream.h).
    virtual bool relaysSteps() const { return false; }
    // A run about to be followed again from its directory: the task's files here made whole
    // before they are read.
    virtual void repair(const QString& /*runDir*/, const TaskPlace&) const {}
    // A task being followed again from the run directory (attach): where what arrived ends.
    virtual void attached(LaunchTask& task, const TaskPlace& place, const ReplayPosition& position) = 0;
    // Whether `task` can be followed now; when not, it is followed once it can (LaunchHost::follow).
    virtual bool readyToFollow(LaunchTask&) { return true; }
    virtual FollowFrom followFrom(const LaunchTask& task) const;
    // The front process for `task` (not started).
    virtual std::unique_ptr<TaskProcess> createFront(LaunchTask& task) = 0;
    // What the front process sent, after the launcher took the follow line's offsets.
    virtual void received(LaunchTask&, const StreamPiece&) {}
    virtual void errorReceived(LaunchTask&, const QByteArray&) {}
    // Its front process ended without the task's end (no `exit` event): true when the backend
    // took it (a node lost); `followed`: the front was a follower, the task may go on.
    virtual bool frontLost(LaunchTask&, const TaskProcessExit&, bool /*followed*/) { return false; }
    // `kill` was written to its front process.
    virtual void killSent(LaunchTask&) {}
    // Its front process ended (before anything else is made of it).
    virtual void frontEnded(LaunchTask&) {}
    // Its entry of the launch record (nodes.json): where the files here line up with the node's.
    virtual void describe(const LaunchTask&, TaskPlace&) const {}

Q_SIGNALS:
    // The check that check() began is over; `problems` names each node and cause.
    void checked(const QStringList& problems);

protected:
    LaunchHost& host() const { return m_host; }
    const std::vector<LaunchTask*>& tasks() const { return m_tasks; }

private:
    LaunchHost& m_host;
    std::vector<LaunchTask*> m_tasks;
};

} // namespace strata::app
