#include "app/launch/run_controller.h"

#include "app/history/run_recorder.h"

namespace strata::app {

RunController::RunController(QObject* parent) : QObject(parent), m_launcher(&m_store)
{
    connect(&m_launcher, &LocalLauncher::finished, this, [this] {
        QString error;
        if (m_recorder && !m_recorder->recordEnd(outcome(), m_store, &error))
            Q_EMIT historyError(error);
        Q_EMIT finished();
    });
}

RunController::~RunController() = default;

void RunController::setHistory(RunHistory* history, const QString& source)
{
    m_recorder = history ? std::make_unique<RunRecorder>(history, source) : nullptr;
}

RunHistory* RunController::history() const { return m_recorder ? m_recorder->history() : nullptr; }

QString RunController::historySource() const { return m_recorder ? m_recorder->source() : QString(); }

qint64 RunController::historyId() const { return m_recorder ? m_recorder->runId() : 0; }

bool RunController::launch(const ExperimentDocument& document, const QString& enginePath, const QString& runDir,
                           QString* error)
{
    const Validation& v = document.validation();
    if (!v.ok()) {
        QStringList lines;
        for (const auto& p : v.problems)
            lines << p.text();
        *error = tr("The experiment has %n problem(s):", nullptr, int(v.problems.size())) + "\n" + lines.join('\n');
        return false;
    }
    const Json experiment = document.forLaunch();
    const QString name = QString::fromStdString(experiment.value("name", std::string("experiment")));
    if (!m_launcher.start(experiment, enginePath, runDir.isEmpty() ? LocalLauncher::defaultRunDir(name) : runDir,
                         error))
        return false;
    m_launched = true;
    QString historyProblem;
    if (m_recorder && !m_recorder->recordStart(experiment, v, m_launcher.runDir(), tasks(), &historyProblem))
        Q_EMIT historyError(historyProblem);
    Q_EMIT started();
    return true;
}

void RunController::stop(int graceMs) { m_launcher.stop(graceMs); }

RunOutcome RunController::outcome() const
{
    if (!m_launched)
        return RunOutcome::None;
    if (m_launcher.isRunning())
        return RunOutcome::Running;
    return endedOutcome(m_store);
}

QString RunController::summary() const
{
    return outcomeSummary(m_store);
}

} // namespace strata::app
