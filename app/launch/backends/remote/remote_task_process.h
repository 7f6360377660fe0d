#pragma once
// RemoteTaskProcess: a task's front process on a remote node: an exec channel of the node's
// SSH connection running the engine through the remote user's shell. The connection must
// outlive it.

#include "app/launch/job/task_process.h"

namespace strata::app {

namespace ssh {
class Connection;
}

class RemoteTaskProcess final : public TaskProcess {
    Q_OBJECT

public:
    RemoteTaskProcess(ssh::Connection* connection, QString engine, QObject* parent = nullptr);
    ~RemoteTaskProcess() override;

    void start(const QStringList& args, const QByteArray& stdinData) override;
    void write(const QByteArray& data) override;
    void kill() override;
    void terminate() override;
    QString program() const override { return m_engine; }

private:
    ssh::Connection* m_connection;
    QString m_engine;
    int m_channel = -1;
    bool m_ended = false;
    QString m_failure; // why the host would not open or run the channel
};

} // namespace strata::app
