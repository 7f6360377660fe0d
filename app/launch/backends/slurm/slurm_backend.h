#pragma once
// SlurmBackend: the tasks of a run submitted to Slurm as one batch job (job_script.h) from
// the login node, which is this machine. Before the launch: sbatch is there and the
// partition exists. The launch writes the job's token (readable by its owner alone) and the
// script into the run directory, which the nodes share, submits it with `sbatch`, records the
// job id (slurm-job.json) and follows the job with `scontrol show job`: while it waits its
// tasks show Slurm's state and reason; once a task's record appears it is followed by
// `strata-engine attach` here, through the shared directory (no SSH to compute nodes), and
// stop/kill go through its control file (slurm_task_front.h). Stop also signals the job's
// steps (TERM: every task checkpoints at the same step) and cancels the job once its tasks
// have ended; a job still waiting is cancelled at once. A requeued job's tasks are followed
// again in their next session. A task that never ran, or whose node Slurm lost, ends with
// Slurm's account of the job. Closing the app leaves the job to Slurm; attach follows it again.
//
// Threads: the launcher's.

#include "app/launch/backends/launch_backend.h"
#include "app/launch/backends/slurm/slurm_job_state.h"

#include <QTimer>

#include <functional>
#include <map>
#include <optional>
#include <set>

namespace strata::app {

class SlurmBackend final : public LaunchBackend {
    Q_OBJECT

public:
    explicit SlurmBackend(LaunchHost& host, QObject* parent = nullptr);
    ~SlurmBackend() override;

    // How often the job's state is asked for.
    void setPollInterval(int ms) { m_poll.setInterval(ms); }
    static constexpr int kPollMs = 2000;
    // The submitted job's id; empty before.
    const QString& jobId() const { return m_jobId; }

    bool runs(const PlannedTask& task) const override { return task.slurm; }
    QString hostText(const PlannedTask& task) const override;
    bool checksNodes() const override { return hasTasks(); }
    void check(const Json& experiment, const QString& localEngine) override;
    void cancelCheck() override { m_checking = false; }

    bool submitsJob() const override { return true; }
    void submit(const QByteArray& token, const QString& launchId, const QStringList& taskFlags) override;
    void stopping() override;
    bool continuesAfterExit(const LaunchTask& task) override;

    void forget() override;
    void watch() override;
    void finish() override;

    void attached(LaunchTask& task, const TaskPlace& place, const ReplayPosition& position) override;
    bool readyToFollow(LaunchTask& task) override;
    std::unique_ptr<TaskProcess> createFront(LaunchTask& task) override;
    void describe(const LaunchTask& task, TaskPlace& place) const override;

private:
    using Done = std::function<void(int code, const QByteArray& out, const QByteArray& err)>;
    // Runs a Slurm client command on the login node; `done` with its exit code and output
    // (code -1: it could not run, the reason in `err`).
    void runClient(const QString& program, const QStringList& args, Done done);
    void poll();
    void jobSeen(const SlurmJobState& state);
    void readJobEvents();
    void cancel(const QStringList& scancelArgs);
    // The tasks that have not ended and are not followed now end with `why`.
    void endUnfollowed(const QString& why);
    QString jobOutputTail() const;
    QString path(const QString& file) const;

    QTimer m_poll;
    // While a task is not followed yet (from the submission on): its record looked for this often.
    QTimer m_recordCheck;
    static constexpr int kRecordCheckMs = 250;
    QString m_jobId;
    std::optional<SlurmJobState> m_state;
    int m_pollsSinceOver = 0;
    bool m_checking = false;
    bool m_stopping = false;
    bool m_submitting = false; // submit() was called: the job id comes from sbatch, not the run directory
    bool m_pollPending = false;
    qint64 m_jobEventsRead = 0;    // bytes of slurm-events.txt read
    double m_warnedAt = 0;         // when the job was last warned (unix seconds; 0: not since it started)
    // Per task: a record started at or before this is an earlier session's, not one to follow.
    std::map<const LaunchTask*, double> m_staleSession;
    std::set<const LaunchTask*> m_ran; // followed at least once
};

} // namespace strata::app
