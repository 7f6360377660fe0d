#pragma once
// LocalLauncher: runs an experiment on this machine: one strata-engine process per task
// (QProcess), each given the experiment file and its task, and on its stdin one line, the
// job's secret token (random per run; the tasks' rendezvous refuses connections without
// it); its stdout (the event stream) fed line by line into a MetricsStore, its stderr kept
// for the error report.
//
// The tasks are the cluster's chief and workers (one for the single-process strategies,
// whose validation refuses more; the job's under MultiWorkerMirrored) and, under
// MultiWorkerMirrored, its evaluator, which evaluates the chief's checkpoints and never ends
// by itself if the chief dies: once every training task has ended, an evaluator still
// running is given `evaluatorGraceMs` to evaluate the final weights when they all ended
// well (exit status 0), none otherwise, then asked to stop (SIGTERM) and killed after the
// stop grace period.
//
// Stop asks every engine to stop cleanly (SIGTERM: it checkpoints and reports `done`),
// then kills what is left after a grace period. A process that dies, cannot start, or
// reports an error is recorded in the store with its message, task and exit status; what
// it sent before is kept. A task that a survivor's error names as lost (lost_tasks.h: a
// hung worker) and that still runs is stopped the same way, so nothing of a job that
// cannot go on is left running.
//
// The streams are parsed into the store on a thread of the launcher's own, in the order
// they arrived, so a heavy stream never stalls the window; `finished` comes once the store
// holds everything every task sent and how each ended, and once <run dir>/tasks.json says
// how each ended (task_ends.h), so that the run can be rebuilt from its directory (a
// failure to write it is logged in the store as a warning).

#include "app/metrics/metrics_store.h"
#include "app/metrics/task_ends.h"

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QThread>
#include <QTimer>

#include <functional>
#include <memory>
#include <vector>

namespace strata::app {

class LocalLauncher : public QObject {
    Q_OBJECT

public:
    explicit LocalLauncher(MetricsStore* store, QObject* parent = nullptr);
    ~LocalLauncher() override;

    // Creates `runDir`, writes the experiment there, clears the store and starts the engine
    // for each task. Returns false with the reason when nothing could be started (the engine
    // missing or not executable, the run directory not writable); the store then keeps what
    // it held. A task that fails to start later is reported through the store.
    bool start(const Json& experiment, const QString& enginePath, const QString& runDir, QString* error);
    // Asks every task to stop (SIGTERM), kills the rest after `graceMs`.
    void stop(int graceMs = kStopGraceMs);
    // Kills one task at once (SIGKILL), as a crash would.
    void killTask(const QString& task);

    // How long an evaluator may go on after training ended well, to evaluate the final weights.
    void setEvaluatorGrace(int ms) { m_evaluatorGraceMs = ms; }
    // How long a task the launcher asks to stop on its own (an evaluator, a lost task) has
    // before it is killed (stop() takes its own).
    void setGrace(int ms) { m_graceMs = ms; }
    static constexpr int kStopGraceMs = 10000;
    static constexpr int kEvaluatorGraceMs = 60000;

    bool isRunning() const;
    const QString& runDir() const { return m_runDir; }
    QStringList tasks() const;

    // A new run directory under the user's data directory: runs/<name>-<yyyyMMdd-HHmmss>,
    // with -2, -3... when that exists already.
    static QString defaultRunDir(const QString& experimentName);

Q_SIGNALS:
    void finished(); // every task has ended

private:
    struct Task {
        QString name;
        bool trains = true;    // chief or worker; false: an evaluator
        bool terminated = false; // asked to stop (SIGTERM) by the launcher
        std::unique_ptr<QProcess> process;
        QByteArray pending;    // stdout after the last complete line
        QByteArray stderrTail; // the end of stderr, for the error report
        bool ended = false;
        TaskEnd end;           // how it ended, once `ended`
    };
    void startTask(Task& task, const QString& enginePath, const QString& experimentFile);
    void readOutput(Task& task);
    void taskEnded(Task& task);
    // Runs `record` (a store update) on the ingest thread after what was queued before it;
    // `ends`: it records a task's end, after which `finished` may follow.
    void toStore(std::function<void()> record, bool ends = false);
    // Records `task.end` in the store (after what the task sent) and marks it ended.
    void recordEnd(Task& task);
    // Every task has ended and the store has it: tasks.json, then `finished`.
    void finish();
    // After each task's end: once every training task has ended, winds the evaluator down.
    void windDownEvaluator();
    // SIGTERM to `task` (once), SIGKILL after `graceMs` if it is still running then.
    void terminate(Task& task, int graceMs);
    // Stops the tasks still running that a survivor's error names as lost.
    void endLostTasks();

    MetricsStore* m_store;
    std::vector<std::unique_ptr<Task>> m_tasks;
    int m_endsRecorded = 0; // task ends the store has taken
    QString m_runDir;
    QByteArray m_token; // this run's, hex
    QTimer m_killTimer;
    QTimer m_evaluatorTimer; // the evaluator's time to evaluate the final weights
    int m_evaluatorGraceMs = kEvaluatorGraceMs;
    int m_graceMs = kStopGraceMs;
    QThread m_ingestThread;
    QObject m_ingest; // lives in m_ingestThread
};

} // namespace strata::app
