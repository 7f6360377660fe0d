#include "app/launch/backends/slurm/slurm_task_front.h"

#include "app/launch/backends/slurm/login_node.h"

#include <QPointer>

namespace strata::app {

SlurmTaskFront::SlurmTaskFront(std::unique_ptr<TaskProcess> follower, LoginNode& login, QString controlFile, QObject* parent)
    : TaskProcess(parent), m_follower(std::move(follower)), m_login(login), m_controlFile(std::move(controlFile))
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
    QPointer<SlurmTaskFront> self(this);
    m_login.write(m_controlFile, data, LoginNode::Write::Append, [self, data](const QString& error) {
        if (self && !error.isEmpty())
            Q_EMIT self->errorOutput(tr("strata: cannot pass \"%1\" to the task: %2\n")
                                         .arg(QString::fromUtf8(data.trimmed()), error)
                                         .toUtf8());
    });
}

} // namespace strata::app
