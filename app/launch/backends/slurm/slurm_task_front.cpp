#include "app/launch/backends/slurm/slurm_task_front.h"

#include "app/launch/backends/local/local_task_process.h"

#include <QFile>

namespace strata::app {

SlurmTaskFront::SlurmTaskFront(const QString& enginePath, QString controlFile, QObject* parent)
    : TaskProcess(parent), m_follower(std::make_unique<LocalTaskProcess>(enginePath)),
      m_controlFile(std::move(controlFile))
{
    connect(m_follower.get(), &TaskProcess::output, this, &TaskProcess::output);
    connect(m_follower.get(), &TaskProcess::errorOutput, this, &TaskProcess::errorOutput);
    connect(m_follower.get(), &TaskProcess::ended, this, &TaskProcess::ended);
}

SlurmTaskFront::~SlurmTaskFront() = default;

void SlurmTaskFront::start(const QStringList& args, const QByteArray& stdinData)
{
    // Commands pending from before it was followed go to the task, not to the follower.
    command(stdinData);
    m_follower->start(args, {});
}

void SlurmTaskFront::write(const QByteArray& data) { command(data); }

void SlurmTaskFront::kill() { m_follower->kill(); }

void SlurmTaskFront::terminate() { command("stop\n"); }

QString SlurmTaskFront::program() const { return m_follower->program(); }

void SlurmTaskFront::command(const QByteArray& data)
{
    if (data.isEmpty())
        return;
    QFile file(m_controlFile);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Append) || file.write(data) != data.size() || !file.flush())
        Q_EMIT errorOutput(tr("strata: cannot pass \"%1\" to the task through %2: %3\n")
                               .arg(QString::fromUtf8(data.trimmed()), m_controlFile, file.errorString())
                               .toUtf8());
}

} // namespace strata::app
