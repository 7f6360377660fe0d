#pragma once
// SshBackend: tasks on remote nodes, reached over SSH. Before a launch every node is checked
// (node_check.h) and nothing starts unless all pass; the launch keeps the check's
// connections. Each task is started and followed through its node's connection, its files
// copied here, a task that cannot be heard marked unreachable and followed again
// (../remote/remote_tasks.h).
//
// Threads: the launcher's.

#include "app/launch/backends/launch_backend.h"
#include "app/launch/backends/remote/remote_tasks.h"
#include "app/launch/node_check.h"

#include <memory>

namespace strata::app {

class SshBackend final : public LaunchBackend {
    Q_OBJECT

public:
    explicit SshBackend(LaunchHost& host, QObject* parent = nullptr);
    ~SshBackend() override;

    void setAccess(const RemoteAccess& access);
    void setKeepalive(int ms) { m_remote.links().setKeepalive(ms); }
    void setReconnectInterval(int ms) { m_remote.links().setReconnectInterval(ms); }

    bool runs(const PlannedTask& task) const override { return task.remote; }
    QString hostText(const PlannedTask& task) const override;
    bool checksNodes() const override { return hasTasks(); }
    void check(const Json& experiment, const QString& localEngine) override;
    void cancelCheck() override;
    const QList<NodeReport>* nodeReports() const override;
    std::optional<QList<int>> checkedFreePorts(const QString& host, int count) const override;

    void forget() override;
    void begin() override;
    void watch() override;
    void launched() override;
    void finish() override;

    QStringList startFlags() const override { return {QStringLiteral("--relay-steps")}; }
    bool relaysSteps() const override { return true; }
    void repair(const QString& runDir, const TaskPlace& place) const override;
    void attached(LaunchTask& task, const TaskPlace& place, const ReplayPosition& position) override;
    bool readyToFollow(LaunchTask& task) override;
    FollowFrom followFrom(const LaunchTask& task) const override;
    std::unique_ptr<TaskProcess> createFront(LaunchTask& task) override;
    void received(LaunchTask& task, const StreamPiece& piece) override;
    void errorReceived(LaunchTask& task, const QByteArray& data) override;
    bool frontLost(LaunchTask& task, const TaskProcessExit& exit, bool followed) override;
    void describe(const LaunchTask& task, TaskPlace& place) const override;

private:
    RemoteAccess m_access;
    std::unique_ptr<NodeChecker> m_checker;
    RemoteTasks m_remote;
};

} // namespace strata::app
