#pragma once
// RunController: one run of an experiment: validates, launches the engines (on this machine
// and on remote nodes, JobLauncher), keeps everything they report in its MetricsStore, and
// knows how it ended; or follows again a run launched earlier, which went on without the
// app. The window's dashboard and `strata run` both drive runs through it. With a history,
// every run that starts an engine is recorded there (RunRecorder); a recording failure is
// reported by `historyError` and never stops the run.
//
// Threads: the GUI (or main) thread only.

#include "app/experiment/experiment_document.h"
#include "app/launch/job_launcher.h"
#include "app/metrics/metrics_store.h"
#include "app/metrics/run_outcome.h"

#include <QObject>

#include <memory>

namespace strata::app {

class RunHistory;
class RunRecorder;
struct RunRecord;

class RunController : public QObject {
    Q_OBJECT

public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    MetricsStore& store() { return m_store; }
    const MetricsStore& store() const { return m_store; }
    JobLauncher& launcher() { return m_launcher; }

    // Starts a run of `document` (refused, with every problem listed, when it does not
    // validate). `runDir` empty: a new directory under the user's data directory. With remote
    // nodes, they are checked first: `started` or `launchFailed` follows. `resume`: where it
    // starts when `runDir` holds checkpoints; after a refusal (resumeRefusal()), launch again
    // into runDir() with the user's choice.
    bool launch(const ExperimentDocument& document, const QString& enginePath, const QString& runDir,
                QString* error, ResumeChoice resume = ResumeChoice::Resume);
    // Follows the recorded run `record` again (it went on while no Strata followed it): the
    // dashboard rebuilt from its run directory, then live; its record gets the outcome.
    bool reattach(const RunRecord& record, const QString& enginePath, QString* error);
    // The same for a run directory (no record).
    bool reattach(const QString& runDir, const QString& enginePath, QString* error);
    // Asks the engines to stop cleanly; kills them after `graceMs`.
    void stop(int graceMs = 10000);
    void killTask(const QString& task) { m_launcher.killTask(task); }

    // Records the runs launched from now on in `history` (null: none; it must outlive them),
    // as started from `source` ("app", "headless", "sweep"). Call it between runs.
    void setHistory(RunHistory* history, const QString& source);
    RunHistory* history() const;
    QString historySource() const;
    // The history record of the current or last run; 0 when none was recorded.
    qint64 historyId() const;

    bool isRunning() const { return m_launcher.isRunning(); }
    bool isChecking() const { return m_launcher.isChecking(); }
    const QString& runDir() const { return m_launcher.runDir(); }
    QStringList tasks() const { return m_launcher.tasks(); }
    // After `finished`: how the run ended, and a one-line account (the error, the test
    // metrics of a completed run).
    RunOutcome outcome() const;
    QString summary() const;
    // After `finished`: the engine refused to resume the run directory's checkpoint (it was
    // written by a different experiment); none otherwise.
    std::optional<ResumeRefusal> resumeRefusal() const;

Q_SIGNALS:
    void started();
    // A launch that checked its nodes first started nothing: why (the node and the cause).
    void launchFailed(const QString& error);
    // Every task has ended (and, with a history, the run's record has its outcome).
    void finished();
    // The run could not be recorded in (or finished in) the history: the message says why.
    void historyError(const QString& message);

private:
    MetricsStore m_store;
    JobLauncher m_launcher;
    std::unique_ptr<RunRecorder> m_recorder;
    // What launch() validated, for the record made once the tasks start.
    Validation m_validation;
    bool m_recordOnStart = false;
    bool m_launched = false;
};

} // namespace strata::app
