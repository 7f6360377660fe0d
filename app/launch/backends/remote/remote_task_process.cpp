#include "app/launch/backends/remote/remote_task_process.h"

#include "app/launch/launch_plan.h"
#include "app/ssh/connection.h"

namespace strata::app {

RemoteTaskProcess::RemoteTaskProcess(ssh::Connection* connection, QString engine, QObject* parent)
    : TaskProcess(parent), m_connection(connection), m_engine(std::move(engine))
{
}

RemoteTaskProcess::~RemoteTaskProcess()
{
    // The follower on the node goes with its channel; the task it follows does not.
    if (m_connection && m_channel >= 0 && !m_ended)
        m_connection->closeChannel(m_channel);
}

void RemoteTaskProcess::start(const QStringList& args, const QByteArray& stdinData)
{
    if (!m_connection) {
        m_ended = true;
        Q_EMIT ended({0, false, tr("no connection to its node"), false});
        return;
    }
    connect(m_connection, &ssh::Connection::channelStdout, this, [this](int id, const QByteArray& data) {
        if (id == m_channel)
            Q_EMIT output(data);
    });
    connect(m_connection, &ssh::Connection::channelStderr, this, [this](int id, const QByteArray& data) {
        if (id == m_channel)
            Q_EMIT errorOutput(data);
    });
    connect(m_connection, &ssh::Connection::channelFailed, this, [this](int id, const QString& why) {
        if (id == m_channel)
            m_failure = why;
    });
    connect(m_connection, &ssh::Connection::channelClosed, this, [this](int id, int exitStatus, const QString& signal) {
        if (id != m_channel || m_ended)
            return;
        m_ended = true;
        // No exit status and no signal: the channel went with its connection.
        const bool lost = exitStatus < 0 && signal.isEmpty();
        Q_EMIT ended({signal.isEmpty() ? exitStatus : 0, !signal.isEmpty(), {}, lost, m_failure});
    });
    connect(m_connection, &QObject::destroyed, this, [this] { m_connection = nullptr; });
    m_channel = m_connection->exec(remoteCommand(m_engine, args), stdinData);
}

void RemoteTaskProcess::write(const QByteArray& data)
{
    if (m_connection && m_channel >= 0 && !m_ended)
        m_connection->write(m_channel, data);
}

void RemoteTaskProcess::kill()
{
    if (m_connection && m_channel >= 0 && !m_ended)
        m_connection->closeChannel(m_channel);
}

void RemoteTaskProcess::terminate() { write("stop\n"); }

} // namespace strata::app
