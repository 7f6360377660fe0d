#include "app/session/window_session.h"

#include "app/compare/run_comparison.h"
#include "app/launch/unfollowed_runs.h"

#include <QTimer>

namespace strata::app {

WindowSession::WindowSession(const QString& enginePath, QObject* parent)
    : QObject(parent), m_engine(probeEngine(enginePath.isEmpty() ? defaultEnginePath() : enginePath))
{
    m_document.setHost(m_engine.host);
    m_planner.setEnginePath(m_engine.path);
    connect(&m_planner, &plan::PlanSession::message, this, &WindowSession::message);
    setPrompter(nullptr);
    connect(&m_run, &RunController::started, this, [this] {
        if (m_launching) {
            m_launching = false;
            reportRun(tr("Running %1 in %2").arg(m_document.displayName(), m_run.runDir()), false);
            Q_EMIT showRequested(View::Dashboard);
        }
        Q_EMIT runStateChanged();
        Q_EMIT historyChanged(); // the run's record, as running
    });
    // A batch job's state, recorded by the run's controller (connected before this).
    connect(&m_run.launcher(), &JobLauncher::batchJobChanged, this, &WindowSession::historyChanged);
    connect(&m_run, &RunController::launchFailed, this, [this](const QString& error) {
        // A node failed its check (the message names it and why), or Stop called the launch off.
        m_launching = false;
        Q_EMIT message(error, true);
        Q_EMIT runStateChanged();
    });
    connect(&m_run, &RunController::finished, this, &WindowSession::onRunFinished);
    connect(&m_run, &RunController::historyError, this, [this](const QString& text) {
        m_historyProblem = tr("This run is not recorded in the run history: %1").arg(text);
    });
    connect(&m_sweep, &StrategySweep::variantStarted, this, [this](int index) {
        Q_EMIT sweepProgress(index, m_sweep.count(), m_sweep.variants()[index].label);
    });
    connect(&m_sweep, &StrategySweep::finished, this, &WindowSession::onSweepFinished);
}

WindowSession::~WindowSession() = default;

void WindowSession::setPrompter(ssh::Prompter* prompter)
{
    m_prompter = prompter;
    m_run.launcher().setRemoteAccess(remoteAccess());
}

RemoteAccess WindowSession::remoteAccess()
{
    ssh::SessionOptions options;
    options.keyring = &m_keyring;
    return {options, m_prompter};
}

void WindowSession::openHistory(const QString& path)
{
    QStringList problems;
    QString historyError;
    QList<qint64> unfollowed;
    if (m_history.open(path, &historyError) && unfollowedRuns(m_history, &unfollowed, &historyError)) {
        m_run.setHistory(&m_history, "app");
        m_planner.restoreLatest();
        Q_EMIT historyChanged();
    } else {
        problems << tr("Runs will not be recorded in the run history: %1").arg(historyError);
    }
    if (!m_engine.usable())
        problems.prepend(tr("The training engine cannot be used: %1").arg(m_engine.error));
    const QString offer = unfollowed.isEmpty() ? QString()
                          : unfollowed.size() == 1
                              ? tr("1 run went on without Strata: reattach it from the History page.")
                              : tr("%1 runs went on without Strata: reattach them from the History page.")
                                    .arg(unfollowed.size());
    if (!problems.isEmpty())
        Q_EMIT message((problems + QStringList(offer)).join('\n').trimmed(), true);
    else if (!offer.isEmpty())
        Q_EMIT message(offer, false);
}

QString WindowSession::launchBlocker() const
{
    if (!m_engine.usable())
        return tr("The engine cannot be started: %1").arg(m_engine.error);
    if (m_run.isChecking())
        return tr("Checking the nodes...");
    if (m_run.isRunning())
        return tr("A run is in progress.");
    return {};
}

bool WindowSession::canLaunch() const { return m_document.validation().ok() && launchBlocker().isEmpty(); }

bool WindowSession::launch()
{
    if (!canLaunch())
        return false;
    return startRun({}, ResumeChoice::Resume);
}

bool WindowSession::startRun(const QString& runDir, ResumeChoice choice)
{
    m_sweepLaunched = false;
    m_historyProblem.clear();
    m_launching = true; // `started` reports it: at once, or once the remote nodes passed their check
    QString error;
    if (!m_run.launch(m_document, m_engine.path, runDir, &error, choice)) {
        m_launching = false;
        Q_EMIT message(error, true);
        Q_EMIT runStateChanged();
        return false;
    }
    if (m_run.isChecking())
        Q_EMIT message(tr("Checking the nodes... %1 starts once every node is ready (Stop calls it off).")
                           .arg(m_document.displayName()),
                       false);
    Q_EMIT runStateChanged();
    return true;
}

void WindowSession::stop()
{
    if (m_run.isChecking()) {
        m_run.stop(); // nothing started: `launchFailed` says the launch was called off
        return;
    }
    if (m_run.isRunning()) {
        m_run.stop();
        Q_EMIT message(tr("Stopping: the engine writes a checkpoint and ends (killed if it does not within 10 s)."),
                       false);
    }
}

bool WindowSession::resume(qint64 runId)
{
    QString error;
    const std::optional<RunRecord> record = m_history.run(runId, &error);
    if (record && (m_run.isRunning() || m_run.isChecking()))
        error = tr("a run is in progress here (stop it, or wait for its end)");
    else if (record && !canLaunch())
        error = tr("the experiment cannot be launched as it is (see its problems)");
    else if (record)
        return startRun(record->runDir, ResumeChoice::Resume);
    Q_EMIT message(tr("Cannot resume run #%1: %2").arg(runId).arg(error), true);
    return false;
}

void WindowSession::onRunFinished()
{
    // The run against the newest plan of its experiment (recorded, and the planner calibrated).
    const bool measured = m_run.outcome() == RunOutcome::Completed || m_run.outcome() == RunOutcome::Stopped;
    const std::optional<RunPrediction> prediction =
        measured ? m_planner.checkFinishedRun(m_run.historyId(), m_run.store()) : std::nullopt;
    Q_EMIT runStateChanged();
    Q_EMIT historyChanged();
    // A sweep's runs are reported by the sweep (which may have ended just before this).
    if (const auto refusal = m_sweepLaunched ? std::nullopt : m_run.resumeRefusal()) {
        // Asked once this signal is delivered: the answer may launch again.
        QTimer::singleShot(0, this, [this, refusal = *refusal] { answerResumeRefusal(refusal); });
    } else if (!m_sweepLaunched) {
        reportRun(prediction ? tr("%1\nAgainst the plan: %2").arg(m_run.summary(), predictionText(*prediction))
                             : m_run.summary(),
                  m_run.outcome() == RunOutcome::Failed);
    }
    Q_EMIT runFinished();
}

void WindowSession::answerResumeRefusal(const ResumeRefusal& refusal)
{
    const QString runDir = m_run.runDir();
    const std::optional<ResumeChoice> answer =
        m_resumeAsker ? m_resumeAsker->askResumeChoice(runDir, refusal) : std::nullopt;
    if (!answer) {
        reportRun(tr("Not resumed: the checkpoints in %1 are of a different experiment; they were left as they "
                     "are.\n%2")
                      .arg(runDir, refusal.differences.join('\n')),
                  true);
        return;
    }
    startRun(runDir, *answer);
}

bool WindowSession::reattach(qint64 runId)
{
    QString error;
    const std::optional<RunRecord> record = m_history.run(runId, &error);
    if (record && m_run.isRunning()) {
        error = tr("a run is in progress here (stop it, or wait for its end)");
    } else if (record) {
        m_sweepLaunched = false;
        m_launching = false;
        m_historyProblem.clear();
        if (m_run.reattach(*record, m_engine.path, &error)) {
            Q_EMIT message(tr("Following run #%1 %2 again: what it did meanwhile, then live.")
                               .arg(runId)
                               .arg(record->displayName()),
                           false);
            Q_EMIT showRequested(View::Dashboard);
            Q_EMIT runStateChanged();
            return true;
        }
    }
    Q_EMIT message(tr("Cannot reattach run #%1: %2").arg(runId).arg(error), true);
    return false;
}

bool WindowSession::compareRuns(const QList<qint64>& runIds)
{
    QStringList refs;
    for (qint64 id : runIds)
        refs << QString::number(id);
    QStringList dirs, labels;
    QString error;
    // Each run's colour follows its history id, wherever it is listed.
    if (!resolveRunRefs(refs, &dirs, &labels, &error, &m_history) || !m_comparison.load(dirs, labels, &error, runIds)) {
        Q_EMIT message(tr("Cannot compare these runs: %1").arg(error), true);
        return false;
    }
    Q_EMIT showRequested(View::Comparison);
    return true;
}

bool WindowSession::runSweep(const QList<SweepVariant>& variants)
{
    QString error;
    if (!m_engine.usable() || !m_sweep.start(m_document, variants, m_engine.path, &error)) {
        Q_EMIT message(m_engine.usable() ? error : tr("The engine cannot be started: %1").arg(m_engine.error), true);
        return false;
    }
    m_sweepLaunched = true;
    Q_EMIT message(tr("Running %1 under %n strateg(ies), one after another.", nullptr, int(variants.size()))
                       .arg(m_document.displayName()),
                   false);
    Q_EMIT runStateChanged();
    return true;
}

void WindowSession::onSweepFinished(bool stopped, const QString& error)
{
    QStringList dirs, labels;
    QList<qint64> ids;
    for (const auto& run : m_sweep.finishedRuns()) {
        dirs << run.runDir;
        labels << run.label;
        ids << run.historyId;
    }
    QString loadError;
    if (!dirs.isEmpty() && !m_comparison.load(dirs, labels, &loadError, ids))
        Q_EMIT message(loadError, true);
    const QString done = tr("%1 of %2 strategies ran").arg(dirs.size()).arg(m_sweep.count());
    Q_EMIT sweepEnded(stopped ? tr("stopped: %1").arg(done) : done);
    if (!error.isEmpty())
        Q_EMIT message(error, true);
    else
        Q_EMIT message(stopped ? tr("Sweep stopped; %1. The finished runs are compared.").arg(done)
                               : tr("Sweep done: %1, compared below.").arg(done),
                       false);
    Q_EMIT showRequested(View::Comparison);
}

void WindowSession::reportRun(const QString& text, bool error)
{
    if (m_historyProblem.isEmpty())
        Q_EMIT message(text, error);
    else
        Q_EMIT message(text + "\n" + m_historyProblem, true);
}

} // namespace strata::app
