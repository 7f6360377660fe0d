#pragma once
// How this Strata reaches remote nodes: the SSH session options (known_hosts, timeouts, the
// keyring) and who answers the questions a connection may ask (an unknown host key, a
// password or passphrase): a dialog in the window, the terminal for `strata run`, nobody
// (refused, saying how to trust a host) without one.

#include "app/ssh/endpoint.h"
#include "app/ssh/prompter.h"
#include "app/ssh/session.h"

#include "strata/schema/cluster_spec.h"

namespace strata::app {

struct RemoteAccess {
    ssh::SessionOptions options;
    ssh::Prompter* prompter = nullptr; // may be null; must outlive the connections
};

// Where a node of the cluster (auth agent, key or password) is reached.
inline ssh::Endpoint endpointOf(const schema::NodeSpec& node)
{
    ssh::Endpoint e;
    e.node = QString::fromStdString(node.name);
    e.host = QString::fromStdString(node.host);
    e.port = int(node.sshPort);
    e.user = QString::fromStdString(node.user);
    e.auth = ssh::authMethodFromString(QString::fromStdString(node.auth)).value_or(ssh::AuthMethod::Agent);
    e.keyFile = QString::fromStdString(node.keyFile);
    return e;
}

} // namespace strata::app
