#pragma once
// NodeLinks: the SSH connections of a run's remote nodes, one per node: those the node check
// opened, adopted, and new ones while the run is followed. A connection that fails or is lost
// is tried again every reconnect interval, its failure logged once until it changes. The
// heartbeat watchdog: a task's follower writes a heartbeat every second, so a task awaited
// (followed and reachable) that has not been heard for `keepaliveMs` has lost its node, which
// is reported `lost` as a dropped connection is.
//
// Threads: the launcher's.

#include "app/launch/remote_access.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace strata::app {

namespace ssh {
class Connection;
}

class NodeLinks : public QObject {
    Q_OBJECT

public:
    // `nodeSpec`: how a node is reached, by its name; `active`: whether the run is followed
    // (no connection is opened or tried again otherwise).
    NodeLinks(std::function<schema::NodeSpec(const QString& node)> nodeSpec, std::function<bool()> active,
              QObject* parent = nullptr);
    ~NodeLinks() override;

    void setAccess(const RemoteAccess& access) { m_access = access; }
    void setKeepalive(int ms) { m_keepaliveMs = ms; }
    void setReconnectInterval(int ms) { m_reconnectMs = ms; }

    // Every link goes (a new run).
    void clear();
    // The connections a node check opened, connected.
    void adopt(std::map<QString, std::unique_ptr<ssh::Connection>> connections);
    // The node's connection, null when there is none.
    ssh::Connection* connection(const QString& node);
    bool isConnected(const QString& node) const;
    // Connects to `node` unless a connection is there or being made (`connected` or `failed`).
    void open(const QString& node);
    // The connection is given up (its tasks are unreachable); tried again after the reconnect
    // interval, from now when `restartRetry` or no retry is pending.
    void drop(const QString& node, bool restartRetry);
    // The run is over: no more tries, every connection goes.
    void close();

    // Heartbeat watchdog: `awaited` says whether a task's silence counts now.
    void watch(std::function<bool(const QString& task)> awaited);
    void heard(const QString& task, const QString& node);

Q_SIGNALS:
    void connected(const QString& node);
    void failed(const QString& node, const QString& why);
    void lost(const QString& node, const QString& why);
    void warning(const QString& message);

private:
    struct Link;
    struct Heard {
        QString task, node;
        QElapsedTimer since;
    };
    Link& link(const QString& node);
    void listen(ssh::Connection* connection, const QString& node);
    void checkHeartbeats();

    std::function<schema::NodeSpec(const QString&)> m_nodeSpec;
    std::function<bool()> m_active;
    std::function<bool(const QString&)> m_awaited;
    RemoteAccess m_access;
    std::map<QString, std::unique_ptr<Link>> m_links;
    std::vector<Heard> m_heard;
    QTimer m_heartbeatTimer;
    int m_keepaliveMs = 0; // set by the launcher (JobLauncher::kKeepaliveMs, kReconnectMs)
    int m_reconnectMs = 0;
};

} // namespace strata::app
