#pragma once
// runCommand: one short command on a connected session (a probe: the engine's version, a
// directory check), its stdin given whole and closed, its output collected, all within a
// timeout. For long-running commands with streamed output use Connection.

#include "app/ssh/failure.h"

#include <QByteArray>
#include <QString>

namespace strata::app::ssh {

class Session;

struct RunResult {
    int exitStatus = -1;   // -1: none came (killed by a signal, or not run)
    QString exitSignal;    // "TERM", ...; empty: none
    QByteArray out, err;   // the command's stdout and stderr
    QString error;         // empty when the command ran to its end, whatever its exit status
    FailureKind kind = FailureKind::None;
    bool ran() const { return error.isEmpty(); }
};

// Runs `command` through the remote user's shell, writes `stdinData` then EOF, and waits for
// the end, at most `timeoutMs` (then the channel is closed and `error` says so). Use from
// the session's thread; the session is left as it was (blocking).
RunResult runCommand(Session& session, const QByteArray& command, const QByteArray& stdinData, int timeoutMs);

} // namespace strata::app::ssh
