#pragma once
// SlurmBackend: the tasks of a run submitted to Slurm as one batch job (job_script.h) from
// the login node (login_node.h): this machine, or a node of the cluster's list reached over
// SSH with the same host keys and authentication as any node. Before the launch: the login
// node answers, has Slurm's client commands, and the partition exists. The launch writes the
// job's token (readable by its owner alone) and the script into the run directory as the
// login node sees it, which the compute nodes share, submits it with `sbatch`, records the job
// id (slurm-job.json, here) and follows the job with `scontrol show job`: while it waits its
// tasks show Slurm's state and reason; once a task's record appears it is followed by
// `strata-engine attach` on the login node, through the shared directory (no SSH to compute
// nodes): here, or over SSH with its files copied here (../remote/remote_tasks.h). Stop and
// kill go through the task's control file (slurm_task_front.h); Stop also signals the job's
// steps (TERM: every task checkpoints at the same step) and cancels the job once its tasks
// have ended; a job still waiting is cancelled at once. A requeued job's tasks are followed
// again in their next session. A task that never ran, or whose node Slurm lost, ends with
// Slurm's account of the job. Closing the app leaves the job to Slurm; attach follows it again.
//
// Threads: the launcher's.

#include "app/launch/backends/launch_backend.h"
#include "app/launch/backends/remote/remote_tasks.h"
#include "app/launch/backends/slurm/login_node.h"
#include "app/launch/backends/slurm/slurm_job_state.h"
#include "app/launch/remote_access.h"

#include <QTimer>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace strata::app {

class SlurmBackend final : public LaunchBackend {
    Q_OBJECT

public:
    explicit SlurmBackend(LaunchHost& host, QObject* parent = nullptr);
    ~SlurmBackend() override;

    void setAccess(const RemoteAccess& access);
    void setKeepalive(int ms) { m_remote.links().setKeepalive(ms); }
    void setReconnectInterval(int ms) { m_remote.links().setReconnectInterval(ms); }
    // How often the job's state is asked for.
    void setPollInterval(int ms) { m_poll.setInterval(ms); }
    static constexpr int kPollMs = 2000;
    // The submitted job's id; empty before.
    const QString& jobId() const { return m_jobId; }

    bool runs(const PlannedTask& task) const override { return task.slurm; }
    QString hostText(const PlannedTask& task) const override;
    bool checksNodes() const override { return hasTasks(); }
    void check(const Json& experiment, const QString& localEngine) override;
    void cancelCheck() override;

    bool submitsJob() const override { return true; }
    void submit(const QByteArray& token, const QString& launchId, const QStringList& taskFlags) override;
    void stopping() override;
    bool continuesAfterExit(const LaunchTask& task) override;

    void forget() override;
    void begin() override;
    void watch() override;
    void finish() override;

    bool relaysSteps() const override { return overSsh(); }
    void repair(const QString& runDir, const TaskPlace& place) const override;
    void attached(LaunchTask& task, const TaskPlace& place, const ReplayPosition& position) override;
    bool readyToFollow(LaunchTask& task) override;
    FollowFrom followFrom(const LaunchTask& task) const override;
    std::unique_ptr<TaskProcess> createFront(LaunchTask& task) override;
    void received(LaunchTask& task, const StreamPiece& piece) override;
    void errorReceived(LaunchTask& task, const QByteArray& data) override;
    bool frontLost(LaunchTask& task, const TaskProcessExit& exit, bool followed) override;
    void describe(const LaunchTask& task, TaskPlace& place) const override;

private:
    // The login node the experiment names; empty: this machine. Read once a run (the hooks
    // that ask are on every output's path).
    const QString& loginName() const;
    bool overSsh() const { return !loginName().isEmpty(); }
    schema::NodeSpec loginSpec() const;
    // The login node for the experiment's setting (made again when it changed).
    LoginNode& login();
    void checkClients(const QString& partition, const QString& engine);
    // Writes each (path, bytes) on the login node in turn (an empty path: skipped), then `done`
    // with the first error, or none.
    void writeAll(std::vector<std::pair<QString, QByteArray>> files, std::function<void(const QString&)> done);

    void poll();
    void jobSeen(const SlurmJobState& state);
    void endOverJob(const SlurmJobState& state, const QString& outputTail);
    // Reads the records of the tasks not ended, then calls `then`.
    void readRecords(std::function<void()> then);
    // Reads what the job script wrote since it was last read, then calls `then` (may be empty).
    void readJobEvents(std::function<void()> then = {});
    void jobEventLine(const QByteArray& line);
    // The exits held until the job's events say whether Slurm warned the job (over SSH).
    void decideHeld();
    void cancel(const QStringList& scancelArgs);
    // The tasks that have not ended and are not followed now end with `why`.
    void endUnfollowed(const QString& why);
    // A task's record field; null without one.
    Json recordField(const QString& task, const char* field) const;
    std::optional<double> recordStarted(const QString& task) const;
    QString recordHost(const QString& task) const;
    // The run directory as the login node sees it, and a file of it.
    QString jobRunDir() const;
    QString path(const QString& file) const;

    RemoteAccess m_access;
    RemoteTasks m_remote;
    std::unique_ptr<LoginNode> m_login;
    QString m_loginOf; // the login node m_login reaches ("": this machine)
    mutable std::optional<QString> m_loginName; // loginName(), until forget() or check()
    std::unique_ptr<ssh::Connection> m_checkConnection;
    QTimer m_poll;
    // While a task is not followed yet (from the submission on): its record looked for this often.
    QTimer m_recordCheck;
    static constexpr int kRecordCheckMs = 250;
    QString m_jobId;
    QString m_jobRunDir; // absolute, as the login node resolved it at submission
    std::optional<SlurmJobState> m_state;
    std::map<QString, Json> m_records; // per task: its record as last read
    int m_pollsSinceOver = 0;
    int m_generation = 0; // answers for an earlier run (or check) are dropped
    bool m_checking = false;
    bool m_stopping = false;
    bool m_submitting = false; // submit() was called: the job id comes from sbatch, not the run directory
    bool m_pollPending = false;
    bool m_recordsPending = false;
    qint64 m_jobEventsRead = 0;    // bytes of slurm-events.txt read
    int m_eventReadsIssued = 0;    // reads of slurm-events.txt asked for, numbered from 1
    int m_eventReadsDone = 0;      // the last of them answered
    double m_warnedAt = 0;         // when the job was last warned (unix seconds; 0: not since it started)
    // Per task: a record started at or before this is an earlier session's, not one to follow.
    std::map<const LaunchTask*, double> m_staleSession;
    std::set<const LaunchTask*> m_ran; // followed at least once
    // Exits that arrived before the job's events could be read (over SSH): the read they wait on.
    struct Held {
        TaskEnd end;
        int afterRead = 0; // decided once this read is answered
    };
    std::map<LaunchTask*, Held> m_held;
};

} // namespace strata::app
