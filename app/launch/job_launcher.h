#pragma once
// JobLauncher: runs an experiment's tasks, each on its node (launch_plan.h): this machine
// through a QProcess, a remote node through an SSH exec channel, the same way. Every task is
// started by `strata-engine start`, which detaches it under a supervisor on its node and
// then follows it (job/task_process.h): the task never depends on the app. Its stdin carries the
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
// those all ended well, none otherwise, then asked to stop and killed after the grace
// period. Stop asks every task to stop (it checkpoints and reports `done`), then kills what
// is left after a grace period. A task that a survivor's error names as lost (lost_tasks.h)
// and that still runs is stopped the same way. How a task ended comes from its supervisor
// (the `exit` event), else from its front process (an engine that could not start). `finished` comes once the store holds everything
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
//
// Pieces: the backends (backends/launch_backend.h: this machine, SSH; backends/README.md)
// do what depends on where a task runs; job/ holds what every task shares: its state, the
// stream of what it sends (job/task_stream.h), its step records, the ingest thread and the
// policy for ending the job (job/job_end_policy.h), which JobEnding (job_ending.h) carries out.
//
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

class BackendSet;
class IngestQueue;
class JobEnding;
struct LaunchTask;
struct NodeReport;
struct ReplayPosition;
struct TaskPlace;

class JobLauncher : public QObject {
    Q_OBJECT

public:
    explicit JobLauncher(MetricsStore* store, QObject* parent = nullptr);
    ~JobLauncher() override;

    // How remote nodes are reached (known_hosts, the prompter for host keys and passwords).
    void setRemoteAccess(const RemoteAccess& access);
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

    void setEvaluatorGrace(int ms);
    // How long a task the launcher asks to stop on its own (an evaluator, a lost task) has
    // before it is killed (stop() takes its own).
    void setGrace(int ms);
    // How long a remote task may stay silent (no event, no heartbeat) before it is marked
    // unreachable; how often its node is then tried again.
    void setKeepalive(int ms);
    void setReconnectInterval(int ms);
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
    // What the scheduler told of the run's batch job ("Slurm job 12: PENDING (Resources)").
    void batchJobChanged(const QString& account);

private:
    enum class Phase { Idle, Checking, Running };
    class Host;

    // The run's tasks, each given to its backend (the last run's forgotten).
    void setTasks(std::vector<PlannedTask> plans);
    void clearTasks() { setTasks({}); }
    // The experiment's automatic ports made explicit, on ports the checks found free.
    bool resolvePorts(QString* error);
    void nodesChecked(const QStringList& problems);
    // Writes the launch files and starts every task.
    void launchTasks();
    void startFront(LaunchTask& task, const QStringList& args, const QByteArray& stdinData);
    void output(LaunchTask& task, const QByteArray& data);
    void errorOutput(LaunchTask& task, const QByteArray& data);
    void frontEnded(LaunchTask& task, const struct TaskProcessExit& exit);
    // Records `task.end` in the store (after what the task sent) and marks it ended.
    void recordEnd(LaunchTask& task);
    void toStore(std::function<void()> record, bool ends = false);
    void finish();
    void endLostTasks();

    void follow(LaunchTask& task); // starts `attach` for the task on its node
    void writeLaunchRecord();
    void endTask(LaunchTask& task, const QString& why, bool ran);
    void endTask(LaunchTask& task, const TaskEnd& end);
    // A task of the run attach() follows again: where what arrived ends, whether it ended.
    void attachTask(LaunchTask& task, const TaskPlace& place, const ReplayPosition& position);

    MetricsStore* m_store;
    std::unique_ptr<Host> m_host;
    std::unique_ptr<BackendSet> m_backends;
    Phase m_phase = Phase::Idle;
    std::vector<std::unique_ptr<LaunchTask>> m_tasks;
    int m_checksPending = 0;
    QStringList m_checkProblems;
    int m_endsRecorded = 0;
    QString m_runDir;
    QString m_localEngine;
    Json m_experiment;
    QByteArray m_token; // this run's, hex
    QString m_launchId; // `start --launch`
    ResumeChoice m_resume = ResumeChoice::Resume;
    std::unique_ptr<QLockFile> m_lock;
    std::unique_ptr<JobEnding> m_ending;
    std::unique_ptr<IngestQueue> m_ingest;
};

} // namespace strata::app
