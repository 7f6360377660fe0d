#pragma once
// Endpoint: where one cluster node is reached over SSH and how to log in there. A plain
// value, copied freely between threads.

#include <QString>

#include <optional>

namespace strata::app::ssh {

// How a node is logged into. (A node whose auth is `none` is this machine: no SSH at all,
// so it has no Endpoint.)
enum class AuthMethod {
    Agent,    // the keys of an SSH agent (SessionOptions::agentSocket, else $SSH_AUTH_SOCK)
    Key,      // a private key file (an encrypted one asks for its passphrase)
    Password, // a password (from the keyring when remembered, else asked for)
};

// "agent", "key", "password" (as the experiment document spells them); nullopt for anything else.
std::optional<AuthMethod> authMethodFromString(const QString& text);
QString toString(AuthMethod method);

struct Endpoint {
    QString node;  // the node's name in the experiment; may be empty
    QString host;  // a name or an address (IPv6 without brackets)
    int port = 22;
    QString user;  // empty: the user running Strata
    AuthMethod auth = AuthMethod::Agent;
    QString keyFile; // with AuthMethod::Key; a leading ~/ is the home directory

    // The user that logs in: `user`, else the current user.
    QString effectiveUser() const;
    // `node "gpu1" (alice@10.0.0.5:22)`, or `alice@10.0.0.5:22` without a node name: every
    // message about this endpoint starts with it.
    QString label() const;
    // `host:port`, `[v6]:port`: what `strata hosts trust` takes.
    QString hostPort() const;
    // The name its host keys are filed under in known_hosts: `host` on port 22, else
    // `[host]:port` (OpenSSH's form).
    QString knownHostsName() const;
    // keyFile with ~/ expanded.
    QString keyPath() const;
};

} // namespace strata::app::ssh
