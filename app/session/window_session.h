#pragma once
// WindowSession: what one window of Strata works on, and the decisions about it (as
// PulseView's Session): it owns the experiment document, the run history, the run controller,
// the strategy sweep and the comparison, and decides whether a launch, a resume or a reattach
// may start, what the user is told when a run starts and ends, and what a finished sweep
// becomes. The window builds the widgets over what it owns and follows its signals; questions
// go to the user through the interfaces it is given (SSH prompts, ResumeAsker).
//
// Threads: the GUI thread.

#include "app/compare/comparison_session.h"
#include "app/compare/strategy_sweep.h"
#include "app/experiment/experiment_document.h"
#include "app/history/run_history.h"
#include "app/launch/engine_info.h"
#include "app/launch/remote_access.h"
#include "app/launch/resume_choice.h"
#include "app/launch/run_controller.h"
#include "app/plan/plan_session.h"
#include "app/ssh/keyring.h"

#include <QObject>

#include <optional>

namespace strata::app {

// The engine refused to resume `runDir`'s checkpoint (it was written by a different
// experiment): how to launch instead (Fresh, or WeightsOnly when `refusal.weightsOnly`), or
// nullopt to leave the run directory as it is.
class ResumeAsker {
public:
    virtual ~ResumeAsker() = default;
    virtual std::optional<ResumeChoice> askResumeChoice(const QString& runDir, const ResumeRefusal& refusal) = 0;
};

class WindowSession : public QObject {
    Q_OBJECT

public:
    // Where the window should look after a decision.
    enum class View { Dashboard, Comparison };
    Q_ENUM(View)

    // Probes the engine at `enginePath` (empty: defaultEnginePath()) and gives the document
    // this host's devices. The history is not open yet: openHistory().
    explicit WindowSession(const QString& enginePath = {}, QObject* parent = nullptr);
    ~WindowSession() override;

    ExperimentDocument& document() { return m_document; }
    RunHistory& history() { return m_history; }
    RunController& run() { return m_run; }
    StrategySweep& sweep() { return m_sweep; }
    ComparisonSession& comparison() { return m_comparison; }
    // The scaling planner's plan of the document; each finished run is checked against it.
    plan::PlanSession& planner() { return m_planner; }
    const EngineInfo& engine() const { return m_engine; }

    // Remote nodes are reached with the user's known_hosts; `prompter` (it must outlive the
    // session's runs) asks for host keys and secrets, which are remembered in the OS keyring
    // when the user asks. The access the run's launcher uses, for the node checks too.
    void setPrompter(ssh::Prompter* prompter);
    RemoteAccess remoteAccess();
    // Who answers a refused resume (null: nobody, the run directory is left as it is).
    void setResumeAsker(ResumeAsker* asker) { m_resumeAsker = asker; }

    // Opens the run history at `path` and records the runs there from now on. Runs it calls
    // `running` that went on without Strata are offered for reattaching; those that can never
    // be followed again are marked interrupted. `message` says what the user should know (an
    // unusable engine or history, the runs to reattach).
    void openHistory(const QString& path);

    // Why nothing can be launched now (no engine, nodes being checked, a run going on); empty
    // when a valid document could be.
    QString launchBlocker() const;
    bool canLaunch() const;
    // Starts the document's run (with remote nodes once they passed their check).
    bool launch();
    // Stops the run, or calls off a launch still checking its nodes.
    void stop();
    // Follows the recorded run again (it went on without Strata).
    bool reattach(qint64 runId);
    // Trains the document on in the recorded run's directory, from its newest checkpoint. When
    // the engine refuses (the checkpoint is of a different experiment), the ResumeAsker is
    // asked once the run has ended, and the run is launched again as answered.
    bool resume(qint64 runId);
    // Compares the recorded runs.
    bool compareRuns(const QList<qint64>& runIds);
    // Runs the experiment under each variant, then compares the finished runs.
    bool runSweep(const QList<SweepVariant>& variants);

Q_SIGNALS:
    // News for the user (the window's banner).
    void message(const QString& text, bool error);
    // Running, checking or idle changed: what launchBlocker() says may have too.
    void runStateChanged();
    void showRequested(WindowSession::View view);
    // A run was recorded or finished in the history (or it was opened).
    void historyChanged();
    void sweepProgress(int index, int count, const QString& label);
    // The sweep ended: how many strategies ran ("stopped: 2 of 3 strategies ran").
    void sweepEnded(const QString& summary);
    // The run ended and was reported (or its refused resume is about to be asked).
    void runFinished();

private:
    // Starts the document's run in `runDir` (empty: a new one).
    bool startRun(const QString& runDir, ResumeChoice choice);
    void onRunFinished();
    void onSweepFinished(bool stopped, const QString& error);
    void answerResumeRefusal(const ResumeRefusal& refusal);
    // A run's news, with why the run is not in the history if it is not.
    void reportRun(const QString& text, bool error);

    EngineInfo m_engine;
    ExperimentDocument m_document;
    ssh::Keyring m_keyring; // outlives m_run's connections, which may remember secrets in it
    RunHistory m_history;   // outlives m_run, which records into it
    RunController m_run;
    StrategySweep m_sweep{&m_run};
    ComparisonSession m_comparison;
    plan::PlanSession m_planner{&m_document, &m_history};
    ssh::Prompter* m_prompter = nullptr;
    ResumeAsker* m_resumeAsker = nullptr;
    QString m_historyProblem;     // the current run could not be recorded: why
    bool m_launching = false;     // a launch was asked for and its run has not started yet
    bool m_sweepLaunched = false; // the last runs were a sweep's (it reports them)
};

} // namespace strata::app
