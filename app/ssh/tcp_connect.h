#pragma once
// The TCP connection under a session, made by Strata rather than libssh so that every step
// has a bound: the name lookup (on a helper thread, abandoned at the deadline), the connect
// of each address (non-blocking, polled), both abandoned at once when interrupted. Failures
// come back as a kind and a cause in words ("connection refused (nothing listens on port
// 2222)"); the caller adds which endpoint.

#include "app/ssh/failure.h"

#include <QDeadlineTimer>
#include <QString>

namespace strata::app::ssh {

class Interrupter;

// A connected socket (blocking mode, close-on-exec, TCP_NODELAY) to host:port, or -1 with
// *kind and *cause set. `interrupter` may be null. The caller owns the descriptor.
int tcpConnect(const QString& host, int port, QDeadlineTimer deadline, const Interrupter* interrupter,
               FailureKind* kind, QString* cause);

// TCP keepalive and user timeout so that a peer that stops answering (a cut cable, a host
// that froze) is noticed after about `deadPeerMs`, idle or not, instead of after the
// kernel's two hours (idle) or fifteen minutes (unacknowledged data).
void setDeadPeerTimeout(int fd, int deadPeerMs);
// Acknowledge what the node sends at once, for the next wait. After the login sshd sends an
// unasked message (its host keys); with nothing of ours to carry the ACK, Linux delays it
// 40 ms, and sshd's reply to our first channel waits behind it (Nagle): a 40 ms stall on the
// first command of every connection (bench/README.md, "Launching over SSH"). Linux clears the
// flag by itself, so it is set before each wait.
void ackPromptly(int fd);

} // namespace strata::app::ssh
