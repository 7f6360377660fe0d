#pragma once
// SshBackend: tasks on remote nodes, reached over SSH (node_links.h). Before a launch every
// node is checked (node_check.h) and nothing starts unless all pass; the launch keeps the
// check's connections. A task's front process is an exec channel of its node's connection
// (remote_task_process.h); its follower relays the step records among the events, and its
// files are copied into the run directory here (task_mirror.h). A task that cannot be heard
// (its connection lost, its follower ended, no heartbeat for the keepalive) is marked
// unreachable, not lost: its node is tried again, and the task followed again from the last
// byte received.
//
// Threads: the launcher's.

#include "app/launch/backends/launch_backend.h"
#include "app/launch/backends/ssh/node_links.h"
#include "app/launch/backends/ssh/task_mirror.h"
#include "app/launch/node_check.h"

#include <map>
#include <memory>

namespace strata::app {

class SshBackend final : public LaunchBackend {
    Q_OBJECT

public:
    explicit SshBackend(LaunchHost& host, QObject* parent = nullptr);
    ~SshBackend() override;

    void setAccess(const RemoteAccess& access);
    void setKeepalive(int ms) { m_links.setKeepalive(ms); }
    void setReconnectInterval(int ms) { m_links.setReconnectInterval(ms); }

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
    void markUnreachable(const QString& node, const QString& why);
    TaskMirror* mirror(const LaunchTask& task) const;

    RemoteAccess m_access;
    std::unique_ptr<NodeChecker> m_checker;
    NodeLinks m_links;
    std::map<const LaunchTask*, std::unique_ptr<TaskMirror>> m_mirrors;
};

} // namespace strata::app
