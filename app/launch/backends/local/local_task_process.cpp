#include "app/launch/backends/local/local_task_process.h"

namespace strata::app {

LocalTaskProcess::LocalTaskProcess(QString enginePath, QObject* parent)
    : TaskProcess(parent), m_enginePath(std::move(enginePath))
{
}

LocalTaskProcess::~LocalTaskProcess()
{
    // The follower goes with the launcher; the task it follows does not (it is detached).
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(3000);
    }
}

void LocalTaskProcess::start(const QStringList& args, const QByteArray& stdinData)
{
    m_process = std::make_unique<QProcess>();
    QProcess* p = m_process.get();
    connect(p, &QProcess::readyReadStandardOutput, this, [this, p] { Q_EMIT output(p->readAllStandardOutput()); });
    connect(p, &QProcess::readyReadStandardError, this, [this, p] { Q_EMIT errorOutput(p->readAllStandardError()); });
    connect(p, &QProcess::finished, this, [this, p](int, QProcess::ExitStatus) {
        if (m_ended)
            return;
        m_ended = true;
        if (const QByteArray rest = p->readAllStandardOutput(); !rest.isEmpty())
            Q_EMIT output(rest);
        if (const QByteArray rest = p->readAllStandardError(); !rest.isEmpty())
            Q_EMIT errorOutput(rest);
        // QProcess reports the signal as the exit code of a crash (Unix).
        Q_EMIT ended({p->exitCode(), p->exitStatus() == QProcess::CrashExit, {}, false});
    });
    connect(p, &QProcess::errorOccurred, this, [this, p](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart || m_ended)
            return;
        m_ended = true;
        Q_EMIT ended({0, false, tr("could not start %1: %2").arg(p->program(), p->errorString()), false});
    });
    p->start(m_enginePath, args);
    p->write(stdinData); // kept by QProcess until the process has started
}

void LocalTaskProcess::write(const QByteArray& data)
{
    if (m_process && m_process->state() != QProcess::NotRunning)
        m_process->write(data);
}

void LocalTaskProcess::kill()
{
    if (m_process && m_process->state() != QProcess::NotRunning)
        m_process->kill();
}

void LocalTaskProcess::terminate()
{
    if (m_process && m_process->state() != QProcess::NotRunning)
        m_process->terminate();
}

} // namespace strata::app
