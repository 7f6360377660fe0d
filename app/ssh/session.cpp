#include "app/ssh/session.h"

#include "app/ssh/auth.h"
#include "app/ssh/interrupter.h"
#include "app/ssh/known_hosts.h"
#include "app/ssh/prompts.h"
#include "app/ssh/tcp_connect.h"

#include <QFile>
#include <QObject>

#include <unistd.h>

namespace strata::app::ssh {

namespace {

// The global known_hosts: a path that cannot exist (/dev/null is no directory), so that
// nothing outside the user's own file decides whether a host is trusted.
constexpr const char* kNoGlobalKnownHosts = "/dev/null/strata-no-global-known-hosts";

bool fail(QString* error, FailureKind* kind, FailureKind k, const QString& message)
{
    *error = message;
    if (kind)
        *kind = k;
    return false;
}

} // namespace

Session::Session(const Endpoint& endpoint, const SessionOptions& options)
    : m_endpoint(endpoint), m_options(options), m_deadline(options.timeoutMs)
{
    if (!m_options.interrupter)
        m_options.interrupter = std::make_shared<Interrupter>();
}

Session::~Session()
{
    // No goodbye message: sending it could block on a peer that stopped reading. Closing
    // the socket (libssh's copy in ssh_free, the interrupter's here) is the goodbye.
    m_session.reset();
    m_options.interrupter->detach();
}

QString Session::knownHostsFile() const
{
    return m_options.knownHostsFile.isEmpty() ? defaultKnownHostsFile() : m_options.knownHostsFile;
}

bool Session::isAlive() const
{
    return m_session && ssh_is_connected(m_session.get()) && !(ssh_get_status(m_session.get()) & SSH_CLOSED_ERROR);
}

QString Session::lastError() const
{
    return m_session ? QString::fromUtf8(ssh_get_error(m_session.get())) : QString();
}

void Session::interrupt()
{
    m_options.interrupter->interrupt();
}

QString Session::timeoutText() const
{
    return QObject::tr("no answer within %1 s").arg(m_options.timeoutMs / 1000.0);
}

std::unique_ptr<Session> Session::handshake(const Endpoint& endpoint, const SessionOptions& options, QString* error,
                                            FailureKind* kind)
{
    std::unique_ptr<Session> session(new Session(endpoint, options));
    QString cause;
    FailureKind k = FailureKind::None;
    if (!session->open(&cause, &k)) {
        fail(error, kind, k, endpoint.label() + QStringLiteral(": ") + cause);
        return nullptr;
    }
    return session;
}

std::unique_ptr<Session> Session::connect(const Endpoint& endpoint, const SessionOptions& options, Prompter* prompter,
                                          QString* error, FailureKind* kind)
{
    std::unique_ptr<Session> session = handshake(endpoint, options, error, kind);
    if (!session || !session->verifyHostKey(prompter, error, kind))
        return nullptr;
    QString cause;
    FailureKind k = FailureKind::None;
    if (!session->login(prompter, &cause, &k)) {
        fail(error, kind, k, endpoint.label() + QStringLiteral(": ") + cause);
        return nullptr;
    }
    // Later blocking calls on it get the whole timeout again.
    applyTimeout(session->handle(), QDeadlineTimer(options.timeoutMs));
    return session;
}

bool Session::open(QString* cause, FailureKind* kind)
{
    if (m_endpoint.host.isEmpty())
        return fail(cause, kind, FailureKind::InvalidEndpoint, QObject::tr("no host given"));
    if (m_endpoint.port <= 0 || m_endpoint.port > 65535)
        return fail(cause, kind, FailureKind::InvalidEndpoint, QObject::tr("port %1 is out of range").arg(m_endpoint.port));
    Interrupter& interrupter = *m_options.interrupter;
    if (interrupter.isInterrupted())
        return fail(cause, kind, FailureKind::Cancelled, QObject::tr("abandoned before connecting"));
    const int fd = tcpConnect(m_endpoint.host, m_endpoint.port, m_deadline, &interrupter, kind, cause);
    if (fd < 0) {
        if (*kind == FailureKind::TimedOut && !cause->contains(QLatin1String("DNS")))
            *cause = timeoutText() + QObject::tr(" (the host is down or unreachable, or a firewall drops the packets)");
        return false;
    }
    setDeadPeerTimeout(fd, m_options.deadPeerMs);
    interrupter.attach(fd);

    m_session.reset(ssh_new());
    ssh_session s = m_session.get();
    const QByteArray host = m_endpoint.host.toUtf8();
    const QByteArray user = m_endpoint.effectiveUser().toUtf8();
    const QByteArray knownHosts = QFile::encodeName(knownHostsFile());
    const QByteArray agent = QFile::encodeName(m_options.agentSocket);
    const unsigned port = unsigned(m_endpoint.port);
    const bool processConfig = false; // never ~/.ssh/config or /etc/ssh/ssh_config
    bool ok = s && ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &processConfig) == 0
           && ssh_options_set(s, SSH_OPTIONS_HOST, host.constData()) == 0
           && ssh_options_set(s, SSH_OPTIONS_PORT, &port) == 0
           && ssh_options_set(s, SSH_OPTIONS_USER, user.constData()) == 0
           && ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, knownHosts.constData()) == 0
           && ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, kNoGlobalKnownHosts) == 0
           && (agent.isEmpty() || ssh_options_set(s, SSH_OPTIONS_IDENTITY_AGENT, agent.constData()) == 0);
    if (!ok) {
        ::close(fd);
        return fail(cause, kind, FailureKind::Other,
                    QObject::tr("libssh refused the options: %1").arg(s ? QString::fromUtf8(ssh_get_error(s)) : QString()));
    }
    // From here libssh owns the descriptor and closes it.
    ssh_options_set(s, SSH_OPTIONS_FD, &fd);
    applyTimeout(s, m_deadline);
    if (ssh_connect(s) == SSH_OK)
        return true;
    if (interrupter.isInterrupted())
        return fail(cause, kind, FailureKind::Cancelled, QObject::tr("abandoned while connecting"));
    if (m_deadline.hasExpired())
        return fail(cause, kind, FailureKind::TimedOut,
                    QObject::tr("no SSH answer within %1 s (something listens on port %2 but does not speak SSH, "
                                "or the host is overloaded)").arg(m_options.timeoutMs / 1000.0).arg(m_endpoint.port));
    return fail(cause, kind, FailureKind::Protocol,
                QObject::tr("the SSH handshake failed: %1").arg(QString::fromUtf8(ssh_get_error(s))));
}

bool Session::verifyHostKey(Prompter* prompter, QString* error, FailureKind* kind)
{
    const QString file = knownHostsFile();
    const HostKeyCheck check = checkHostKey(handle(), file, m_endpoint);
    switch (check.state) {
    case HostKeyCheck::Known:
        return true;
    case HostKeyCheck::Changed:
        return fail(error, kind, FailureKind::HostKeyChanged, changedKeyMessage(m_endpoint, check, file));
    case HostKeyCheck::Error:
        return fail(error, kind, FailureKind::Other,
                    QObject::tr("%1: the host key could not be checked: %2").arg(m_endpoint.label(), check.error));
    case HostKeyCheck::Unknown:
        break;
    }
    if (!prompter)
        return fail(error, kind, FailureKind::HostKeyUnknown, unknownKeyMessage(m_endpoint, check.offered, false));
    if (askHostKey(*prompter, m_endpoint, check.offered.type, check.offered.fingerprint, &m_deadline)
        != HostKeyAnswer::Trust)
        return fail(error, kind, FailureKind::HostKeyUnknown, unknownKeyMessage(m_endpoint, check.offered, true));
    QString why;
    if (!trustHostKey(handle(), file, &why))
        return fail(error, kind, FailureKind::Other,
                    QObject::tr("%1: the host key was trusted but could not be remembered: %2").arg(m_endpoint.label(), why));
    return true;
}

bool Session::login(Prompter* prompter, QString* cause, FailureKind* kind)
{
    AuthContext context;
    context.session = handle();
    context.endpoint = m_endpoint;
    context.agentSocket = m_options.agentSocket;
    context.prompter = prompter;
    context.keyring = m_options.keyring;
    context.deadline = &m_deadline;
    context.timeoutMs = m_options.timeoutMs;
    context.warnings = &m_warnings;
    ackPromptly(ssh_get_fd(handle()));
    if (authenticate(context, cause, kind))
        return true;
    if (m_options.interrupter->isInterrupted()) {
        *kind = FailureKind::Cancelled;
        *cause = QObject::tr("abandoned while logging in");
    }
    return false;
}

} // namespace strata::app::ssh
