#include "app/ssh/failure.h"

namespace strata::app::ssh {

QString failureName(FailureKind kind)
{
    switch (kind) {
    case FailureKind::None: return QStringLiteral("none");
    case FailureKind::InvalidEndpoint: return QStringLiteral("invalid endpoint");
    case FailureKind::HostNotFound: return QStringLiteral("host not found");
    case FailureKind::Unreachable: return QStringLiteral("unreachable");
    case FailureKind::ConnectionRefused: return QStringLiteral("connection refused");
    case FailureKind::TimedOut: return QStringLiteral("timed out");
    case FailureKind::Protocol: return QStringLiteral("protocol error");
    case FailureKind::HostKeyUnknown: return QStringLiteral("host key unknown");
    case FailureKind::HostKeyChanged: return QStringLiteral("host key changed");
    case FailureKind::KeyFile: return QStringLiteral("key file");
    case FailureKind::AuthFailed: return QStringLiteral("authentication failed");
    case FailureKind::Cancelled: return QStringLiteral("cancelled");
    case FailureKind::Lost: return QStringLiteral("connection lost");
    case FailureKind::Other: return QStringLiteral("other");
    }
    return {};
}

} // namespace strata::app::ssh
