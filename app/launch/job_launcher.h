#pragma once
// JobLauncher: runs an experiment's tasks, each on its node (launch_plan.h): this machine
// through a QProcess, a remote node through an SSH exec channel, the same way. Every task is
// started by `strata-engine start`, which detaches it under a supervisor on its node and
// then follows it (task_process.h): the task never depends on the app. Its stdin carries the
// job's secret token and the experiment (never argv, the environment or a file others could
// read), then `stop`/`kill`; its stdout the task's events, fed into a MetricsStore; its
// stderr the task's log. A remote task's events and stderr are also written into the run
// directory here (events-<task>.jsonl, stderr-<task>.log), so history, replay and comparison
// work for remote runs as for local ones; where the node's files start (an earlier session
// in a resumed directory) is kept in <run dir>/launch.json.
//
// A launch with remote nodes checks them first (node_check.h: reachable, the engine there
// and its version, the data, the ports; automatic ports resolved on free ones) and starts
// nothing when one fails: `launchFailed` names the node and the cause. Otherwise `started`.
//
// Lifetime. Destroying the launcher (closing the app) leaves the job running; attach()
// follows it again later from the run directory: the store is rebuilt from the files, and
// each task followed from where its file ends here, so every event is there once. A remote
// task that cannot be heard for `keepaliveMs` (its follower sends a heartbeat every second)
// is marked unreachable, not lost; the launcher reconnects to its node every few seconds and
// follows it again from the last byte received, and Stop and Kill task reach it again then.
//
// Ending. The tasks are the cluster's chief and workers (one for the single-process
// strategies, whose validation refuses more), its evaluator in a multi-process job, and
// ParameterServer's ps tasks. The job is over when the tasks that end it have ended
// (endsJob(): the chief and workers; under ParameterServer the chief, the coordinator, which
// shuts the workers and ps tasks down): the others still running (an evaluator, a
// ParameterServer worker or ps task) are given `evaluatorGraceMs` to end by themselves when
// those all ended well, none otherwise, then asked to stop and killed after the grace period. Stop asks every task to stop (it
// checkpoints and reports `done`), then kills what is left after a grace period. A task that
// a survivor's error names as lost (lost_tasks.h) and that still runs is stopped the same
// way. How a task ended comes from its supervisor (the `exit` event), else from its front
// process (an engine that could not start). `finished` comes once the store holds everything
// every task sent and how each ended, and <run dir>/tasks.json says so (task_ends.h).
//
// The streams are parsed into the store on a thread of the launcher's own, in arrival order;
// there too, each time a task's events arrive, the step records its steps-<task>.jsonl gained
// since (this session's: from the file's size at launch, or where the replay left it for
// attach) go in with them (MetricsStore::ingest with records), so every step is drawn. A
// remote task's follower relays its records (`start --relay-steps`, `attach --steps-offset`)
// in frames before the events they precede; they are appended to its copy here
// (steps-<task>.jsonl, lined up with the node's file by `steps_base` in nodes.json), which
// is read as a local task's file is.
// Threads: the GUI (or main) thread.

#include "app/launch/launch_plan.h"
#include "app/launch/remote_access.h"
#include "app/launch/resume_choice.h"
#include "app/metrics/metrics_store.h"
#include "app/rundir/task_ends.h"

#include <QElapsedTimer>
#include <QFile>
#include <QLockFile>
#include <QObject>
#include <QThread>
#include <QTimer>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace strata::app {

class NodeChecker;
class TaskProcess;
struct NodeReport;

class JobLauncher : public QObject {
    Q_OBJECT

public:
    explicit JobLauncher(MetricsStore* store, QObject* parent = nullptr);
    ~JobLauncher() override;

    // How remote nodes are reached (known_hosts, the prompter for host keys and passwords).
    void setRemoteAccess(const RemoteAccess& access) { m_access = access; }

    // Starts the run: creates `runDir`, clears the store and starts a task per planned task;
    // with remote nodes, after checking them (`started` or `launchFailed` follows). Returns
    // false with the reason when nothing could be started (this machine's engine missing or
    // not executable, the run directory not writable, another Strata following it).
    // `resume`: where the tasks start when `runDir` holds checkpoints (resume_choice.h).
    bool start(const Json& experiment, const QString& enginePath, const QString& runDir, QString* error,
               ResumeChoice resume = ResumeChoice::Resume);
    // Follows again the run in `runDir` (launched earlier, by this or another Strata): the
    // store rebuilt from its files, then every task that has not ended followed from there.
    // `started` follows (or `finished` at once when every task had ended).
    bool attach(const QString& runDir, const QString& enginePath, QString* error);
    // Asks every task to stop (it checkpoints and reports `done`), kills the rest after
    // `graceMs`.
    void stop(int graceMs = kStopGraceMs);
    // Kills one task at once (SIGKILL on its node), as a crash would.
    void killTask(const QString& task);

    void setEvaluatorGrace(int ms) { m_evaluatorGraceMs = ms; }
    // How long a task the launcher asks to stop on its own (an evaluator, a lost task) has
    // before it is killed (stop() takes its own).
    void setGrace(int ms) { m_graceMs = ms; }
    // How long a remote task may stay silent (no event, no heartbeat) before it is marked
    // unreachable; how often its node is then tried again.
    void setKeepalive(int ms) { m_keepaliveMs = ms; }
    void setReconnectInterval(int ms) { m_reconnectMs = ms; }
    static constexpr int kStopGraceMs = 10000;
    static constexpr int kEvaluatorGraceMs = 60000;
    static constexpr int kKeepaliveMs = 10000;
    static constexpr int kReconnectMs = 3000;

    // From start() or attach() until `finished` or `launchFailed` (checking included).
    bool isRunning() const;
    // Checking the remote nodes before starting.
    bool isChecking() const { return m_phase == Phase::Checking; }
    const QString& runDir() const { return m_runDir; }
    QStringList tasks() const;
    // Where each task runs: "node (host)" for a remote one, this machine's name for a local one.
    QStringList hosts() const;
    // The experiment as launched (automatic ports resolved).
    const Json& experiment() const { return m_experiment; }
    // The reports of the nodes checked before this launch (remote launches).
    const QList<NodeReport>& nodeReports() const;

    // A new run directory under the user's data directory: runs/<name>-<yyyyMMdd-HHmmss>,
    // with -2, -3... when that exists already.
    static QString defaultRunDir(const QString& experimentName);

Q_SIGNALS:
    void started();                          // every task's front process was started
    void launchFailed(const QString& error); // nothing was started; the message names the node and why
    void finished();                         // every task has ended

private:
    enum class Phase { Idle, Checking, Running };
    struct Task;
    struct StepRecordFeed;
    struct NodeLink;

    bool lockRunDir(const QString& runDir, QString* error);
    void nodesChecked(const QList<NodeReport>& reports);
    // The checker's connections of the nodes that passed, for the tasks.
    void adoptConnections();
    // Writes the launch files and starts every task.
    void launchTasks();
    void startFront(Task& task, const QStringList& args, const QByteArray& stdinData);
    void output(Task& task, const QByteArray& data);
    // A task's steps-<task>.jsonl here (a remote task's copy).
    QString stepsPath(const Task& task) const;
    // The event lines of a task whose follower relays its step records: the records framed
    // among them go into its copy here; what is left is the start of a line or of a frame.
    QByteArray takeEventLines(Task& task, bool* recordsArrived);
    void errorOutput(Task& task, const QByteArray& data);
    void frontEnded(Task& task, const struct TaskProcessExit& exit);
    // Records `task.end` in the store (after what the task sent) and marks it ended.
    void recordEnd(Task& task);
    void toStore(std::function<void()> record, bool ends = false);
    void finish();
    // The tasks that do not end the job, once those that do have ended.
    void windDown();
    // Asks `task` to stop (once); kills it after `graceMs` if it is still running then.
    void terminate(Task& task, int graceMs);
    void kill(Task& task);
    void endLostTasks();

    // Remote nodes: links, reachability, following again.
    NodeLink& link(const QString& node);
    void connectNode(NodeLink& link);
    void nodeConnected(NodeLink& link);
    void markUnreachable(const QString& node, const QString& why);
    void checkHeartbeats();
    void follow(Task& task); // starts `attach` for the task on its node
    void writeLaunchRecord();

    MetricsStore* m_store;
    RemoteAccess m_access;
    Phase m_phase = Phase::Idle;
    std::vector<std::unique_ptr<Task>> m_tasks;
    std::map<QString, std::unique_ptr<NodeLink>> m_links;
    std::unique_ptr<NodeChecker> m_checker;
    int m_endsRecorded = 0;
    QString m_runDir;
    QString m_localEngine;
    Json m_experiment;
    QByteArray m_token; // this run's, hex
    QString m_launchId; // `start --launch`
    ResumeChoice m_resume = ResumeChoice::Resume;
    std::unique_ptr<QLockFile> m_lock;
    QTimer m_killTimer;
    QTimer m_evaluatorTimer;
    QTimer m_heartbeatTimer;
    int m_evaluatorGraceMs = kEvaluatorGraceMs;
    int m_graceMs = kStopGraceMs;
    int m_keepaliveMs = kKeepaliveMs;
    int m_reconnectMs = kReconnectMs;
    QThread m_ingestThread;
    QObject m_ingest; // lives in m_ingestThread
};

} // namespace strata::app
