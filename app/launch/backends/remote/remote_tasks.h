#pragma once
// RemoteTasks: tasks followed over SSH, for the backends whose tasks' files are on another
// machine (ssh/: each task on its node; slurm/: every task through the login node). The
// connections per node (node_links.h: one per 6 of its tasks); a task's front process an exec channel of one
// (remote_task_process.h), whose follower relays the step records among the events; its
// files copied into the run directory here (task_mirror.h). A task that cannot be heard (its
// connection lost, its follower ended, no heartbeat for the keepalive) is marked unreachable,
// not lost: its node is tried again, and the task followed again from the last byte received.
// A front that has not said anything yet is starting, not silent: its connection alone can
// lose it then.
//
// Threads: the launcher's.

#include "app/launch/backends/launch_backend.h"
#include "app/launch/backends/remote/node_links.h"
#include "app/launch/backends/remote/task_mirror.h"

#include <functional>
#include <map>
#include <memory>
#include <set>

namespace strata::app {

class RemoteTasks : public QObject {
    Q_OBJECT

public:
    // `tasks`: the backend's; `nodeOf`: the node a task is followed through; `nodeSpec`: how a
    // node is reached.
    RemoteTasks(LaunchHost& host, std::function<const std::vector<LaunchTask*>&()> tasks,
                std::function<QString(const LaunchTask&)> nodeOf,
                std::function<schema::NodeSpec(const QString& node)> nodeSpec, QObject* parent = nullptr);
    ~RemoteTasks() override;

    NodeLinks& links() { return m_links; }

    void clear();
    // Starts the heartbeat watchdog over the tasks.
    void watch();
    // The run is over: the copies' streams close, every connection goes.
    void finish();

    // The backend's hooks (launch_backend.h), for the tasks it follows over SSH.
    void attached(LaunchTask& task, const TaskPlace& place);
    bool readyToFollow(LaunchTask& task);
    FollowFrom followFrom(const LaunchTask& task) const;
    std::unique_ptr<TaskProcess> createFront(LaunchTask& task, const QString& engine);
    void received(LaunchTask& task, const StreamPiece& piece);
    void errorReceived(LaunchTask& task, const QByteArray& data);
    bool frontLost(LaunchTask& task, const TaskProcessExit& exit, bool followed);
    void describe(const LaunchTask& task, TaskPlace& place) const;

    // Every task followed over `link` (a connection to its node) is unreachable (`why`); the
    // link is tried again.
    void markUnreachable(const QString& link, const QString& why);

private:
    // The connection a task is followed over: its node's first, or another to the same node for
    // a node with more tasks than one connection's sessions hold (named as NodeLinks keys them).
    QString linkOf(const LaunchTask& task) const;
    TaskMirror* mirror(const LaunchTask& task) const;
    QString placeOf(const LaunchTask& task) const;

    LaunchHost& m_host;
    std::function<const std::vector<LaunchTask*>&()> m_tasks;
    std::function<QString(const LaunchTask&)> m_nodeOf;
    NodeLinks m_links;
    std::map<const LaunchTask*, std::unique_ptr<TaskMirror>> m_mirrors;
    // The tasks whose front has said something: only their silence counts (a node busy
    // starting many engines may take long before the first byte, and is not lost).
    std::set<const LaunchTask*> m_spoke;
    mutable std::map<const LaunchTask*, QString> m_linkOf;
};

} // namespace strata::app
