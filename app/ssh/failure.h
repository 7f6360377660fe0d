#pragma once
// FailureKind: why an SSH connection failed or ended, beside the message that says it in
// words, so that callers can tell a host that is unreachable from one that refused us.

#include <QMetaType>
#include <QString>

namespace strata::app::ssh {

enum class FailureKind {
    None,
    InvalidEndpoint,   // no host, a bad port
    HostNotFound,      // the name does not resolve
    Unreachable,       // no route to the host, network down
    ConnectionRefused, // the host answered: nothing listens on that port
    TimedOut,          // no answer within the timeout (host down, packets dropped, not an SSH server)
    Protocol,          // the SSH handshake failed (no common algorithm, not SSH)
    HostKeyUnknown,    // the host key is not in known_hosts and was not trusted
    HostKeyChanged,    // known_hosts has another key for this host
    KeyFile,           // the private key file is missing, unreadable or not a key
    AuthFailed,        // the host rejected the credentials (or offers no method we use)
    Cancelled,         // the user cancelled a prompt, or the caller abandoned the connection
    Lost,              // an established connection broke (I/O error, EOF)
    Other,
};

// A short name for logs: "connection refused", "timed out", ... (not toString: that name
// would take over Qt Test's printing of the enum)
QString failureName(FailureKind kind);

// The host could not be reached at all (as opposed to: it answered and refused us).
inline bool isUnreachable(FailureKind kind)
{
    return kind == FailureKind::HostNotFound || kind == FailureKind::Unreachable || kind == FailureKind::TimedOut
        || kind == FailureKind::ConnectionRefused || kind == FailureKind::Lost;
}

} // namespace strata::app::ssh

Q_DECLARE_METATYPE(strata::app::ssh::FailureKind)
