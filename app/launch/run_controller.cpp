#include "app/launch/run_controller.h"

#include "app/history/run_history.h"
#include "app/history/run_recorder.h"

namespace strata::app {

RunController::RunController(QObject* parent) : QObject(parent), m_launcher(&m_store)
{
    connect(&m_launcher, &JobLauncher::started, this, [this] {
        m_launched = true;
        QString historyProblem;
        if (m_recordOnStart && m_recorder &&
            !m_recorder->recordStart(m_launcher.experiment(), m_validation, m_launcher.runDir(), tasks(),
                                     m_launcher.hosts(), &historyProblem))
            Q_EMIT historyError(historyProblem);
        m_recordOnStart = false;
        Q_EMIT started();
    });
    connect(&m_launcher, &JobLauncher::launchFailed, this, &RunController::launchFailed);
    connect(&m_launcher, &JobLauncher::batchJobChanged, this, [this](const QString& account) {
        QString error;
        if (m_recorder && !m_recorder->recordBatchJob(account, &error))
            Q_EMIT historyError(error);
    });
    connect(&m_launcher, &JobLauncher::finished, this, [this] {
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
                           QString* error, ResumeChoice resume)
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
    m_validation = v;
    m_recordOnStart = true;
    if (!m_launcher.start(experiment, enginePath, runDir.isEmpty() ? JobLauncher::defaultRunDir(name) : runDir,
                          error, resume)) {
        m_recordOnStart = false;
        return false;
    }
    return true;
}

bool RunController::reattach(const QString& runDir, const QString& enginePath, QString* error)
{
    m_recordOnStart = false;
    return m_launcher.attach(runDir, enginePath, error);
}

bool RunController::reattach(const RunRecord& record, const QString& enginePath, QString* error)
{
    if (m_recorder)
        m_recorder->resume(record);
    if (reattach(record.runDir, enginePath, error))
        return true;
    if (m_recorder)
        m_recorder->forget();
    return false;
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

std::optional<ResumeRefusal> RunController::resumeRefusal() const
{
    return isRunning() ? std::nullopt : app::resumeRefusal(m_store);
}

QString RunController::summary() const
{
    return outcomeSummary(m_store);
}

} // namespace strata::app
