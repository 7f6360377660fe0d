#pragma once
// Session: one logged-in SSH connection to an Endpoint (RAII over libssh's ssh_session and
// the socket under it).
//
// connect() does everything in order, each step bounded by the one timeout for the whole
// (time spent in prompts excluded): the TCP connection (Strata's own: the name lookup and
// each connect have bounds, see tcp_connect.h), the SSH handshake, the host key against the
// user's known_hosts and nothing else (libssh's own config processing is off, the global
// known_hosts is a file that cannot exist), then the login (auth.h). Every failure message
// starts with the endpoint's label and says the cause; `kind` tells them apart.
//
// A Session is used from one thread at a time (libssh sessions are not thread-safe), except
// interrupt(), which any thread may call.

#include "app/ssh/endpoint.h"
#include "app/ssh/failure.h"
#include "app/ssh/handles.h"

#include <QDeadlineTimer>
#include <QStringList>

#include <memory>

namespace strata::app::ssh {

class Interrupter;
class Keyring;
class Prompter;

struct SessionOptions {
    QString knownHostsFile;  // empty: ~/.ssh/known_hosts (created, with its directory, when a key is trusted)
    int timeoutMs = 10000;   // the whole connect, from the name lookup to the login
    Keyring* keyring = nullptr; // where secrets are remembered; null: never (must outlive the session)
    QString agentSocket;     // empty: $SSH_AUTH_SOCK
    // An established connection whose peer stops answering is lost after about this long
    // (TCP keepalive and user timeout), not hours later.
    int deadPeerMs = 30000;
    // Lets another thread abandon the connect and, later, the connection; null: the session
    // makes its own (see interrupt()).
    std::shared_ptr<Interrupter> interrupter;
};

class Session {
public:
    // A logged-in session, or null with *error (and *kind when given).
    static std::unique_ptr<Session> connect(const Endpoint& endpoint, const SessionOptions& options,
                                            Prompter* prompter, QString* error, FailureKind* kind = nullptr);
    // Only the first half of connect(): TCP and the SSH handshake. The host key is not yet
    // checked and nobody is logged in: for reading the host key (`strata hosts trust`).
    static std::unique_ptr<Session> handshake(const Endpoint& endpoint, const SessionOptions& options,
                                              QString* error, FailureKind* kind = nullptr);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    ssh_session handle() const { return m_session.get(); }
    const Endpoint& endpoint() const { return m_endpoint; }
    // The known_hosts file in use (the option, or the default).
    QString knownHostsFile() const;
    // What went wrong without stopping the connect (a secret that could not be remembered).
    const QStringList& warnings() const { return m_warnings; }

    // False once the connection broke (an I/O error, EOF, the peer's disconnect).
    bool isAlive() const;
    // Why it broke, as libssh says it.
    QString lastError() const;

    // Any thread: abandons the connection now. Every call blocked on it, and every later
    // one, fails at once.
    void interrupt();

private:
    Session(const Endpoint& endpoint, const SessionOptions& options);
    bool open(QString* cause, FailureKind* kind);
    bool verifyHostKey(Prompter* prompter, QString* error, FailureKind* kind);
    bool login(Prompter* prompter, QString* cause, FailureKind* kind);
    QString timeoutText() const;

    Endpoint m_endpoint;
    SessionOptions m_options;
    QDeadlineTimer m_deadline;
    int m_fd = -1; // the socket libssh was given; Session closes it
    SessionHandle m_session;
    QStringList m_warnings;
};

} // namespace strata::app::ssh
