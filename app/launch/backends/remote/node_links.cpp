#include "app/launch/backends/remote/node_links.h"

#include "app/launch/job/retire.h"
#include "app/ssh/connection.h"

namespace strata::app {

struct NodeLinks::Link {
    schema::NodeSpec node;
    std::unique_ptr<ssh::Connection> connection;
    bool connected = false;
    QTimer retry;
    QString lastFailure; // logged once until it changes
};

NodeLinks::NodeLinks(std::function<schema::NodeSpec(const QString&)> nodeSpec, std::function<bool()> active,
                     QObject* parent)
    : QObject(parent), m_nodeSpec(std::move(nodeSpec)), m_active(std::move(active))
{
    m_heartbeatTimer.setInterval(1000);
    connect(&m_heartbeatTimer, &QTimer::timeout, this, &NodeLinks::checkHeartbeats);
}

NodeLinks::~NodeLinks() = default;

void NodeLinks::clear()
{
    m_links.clear();
    m_heard.clear();
}

NodeLinks::Link& NodeLinks::link(const QString& node)
{
    auto& l = m_links[node];
    if (!l) {
        l = std::make_unique<Link>();
        l->node = m_nodeSpec(node);
        l->retry.setSingleShot(true);
        connect(&l->retry, &QTimer::timeout, this, [this, node] { open(node); });
    }
    return *l;
}

void NodeLinks::listen(ssh::Connection* connection, const QString& node)
{
    connect(connection, &ssh::Connection::lost, this, [this, node](const QString& why) { Q_EMIT lost(node, why); });
    connect(connection, &ssh::Connection::warning, this, [this](const QString& why) { Q_EMIT warning(why); });
}

void NodeLinks::adopt(std::map<QString, std::unique_ptr<ssh::Connection>> connections)
{
    for (auto& [name, connection] : connections) {
        Link& l = link(name);
        l.connection = std::move(connection);
        l.connected = true;
        listen(l.connection.get(), name);
    }
}

ssh::Connection* NodeLinks::connection(const QString& node) { return link(node).connection.get(); }

bool NodeLinks::isConnected(const QString& node) const
{
    const auto l = m_links.find(node);
    return l != m_links.end() && l->second->connected;
}

void NodeLinks::open(const QString& node)
{
    Link& l = link(node);
    if (!m_active() || l.connection)
        return;
    l.connection = std::make_unique<ssh::Connection>(endpointOf(l.node), m_access.options, m_access.prompter);
    connect(l.connection.get(), &ssh::Connection::connected, this, [this, node] {
        Link& up = *m_links[node];
        up.connected = true;
        up.lastFailure.clear();
        Q_EMIT connected(node);
    });
    connect(l.connection.get(), &ssh::Connection::failed, this, [this, node](const QString& why) {
        Link& down = *m_links[node];
        if (down.lastFailure != why) {
            down.lastFailure = why;
            Q_EMIT warning(why + tr(" (trying again)"));
        }
        Q_EMIT failed(node, why);
        retire(down.connection);
        down.retry.start(m_reconnectMs);
    });
    listen(l.connection.get(), node);
    l.connection->open();
}

void NodeLinks::drop(const QString& node, bool restartRetry)
{
    Link& l = link(node);
    if (l.connection) {
        l.connection->disconnect(this);
        l.connection->drop();
        retire(l.connection);
    }
    l.connected = false;
    if ((restartRetry || !l.retry.isActive()) && m_active())
        l.retry.start(m_reconnectMs);
}

void NodeLinks::close()
{
    m_heartbeatTimer.stop();
    for (auto& [name, l] : m_links) {
        l->retry.stop();
        retire(l->connection);
    }
}

void NodeLinks::watch(std::function<bool(const QString& task)> awaited)
{
    m_awaited = std::move(awaited);
    m_heartbeatTimer.start();
}

void NodeLinks::heard(const QString& task, const QString& node)
{
    for (Heard& h : m_heard)
        if (h.task == task) {
            h.since.restart();
            return;
        }
    m_heard.push_back({task, node, {}});
    m_heard.back().since.start();
}

void NodeLinks::checkHeartbeats()
{
    QStringList silent;
    for (const Heard& h : m_heard)
        if (m_awaited && m_awaited(h.task) && h.since.elapsed() > m_keepaliveMs && !silent.contains(h.node))
            silent << h.node;
    for (const QString& node : silent)
        Q_EMIT lost(node, tr("no answer for %1 s").arg(m_keepaliveMs / 1000.0));
}

} // namespace strata::app
