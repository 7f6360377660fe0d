#include "app/ssh/run_command.h"

#include "app/ssh/exec_channel.h"
#include "app/ssh/session.h"
#include "app/ssh/tcp_connect.h"

#include <QDeadlineTimer>
#include <QObject>

#include <algorithm>

namespace strata::app::ssh {

namespace {

// The session non-blocking and polled through an event for as long as this lives.
class PolledSession {
public:
    explicit PolledSession(ssh_session session) : m_session(session), m_event(ssh_event_new())
    {
        ssh_set_blocking(m_session, 0);
        ssh_event_add_session(m_event.get(), m_session);
    }
    ~PolledSession()
    {
        ssh_event_remove_session(m_event.get(), m_session);
        m_event.reset();
        ssh_set_blocking(m_session, 1);
    }
    PolledSession(const PolledSession&) = delete;
    PolledSession& operator=(const PolledSession&) = delete;

    void poll(int timeoutMs)
    {
        ackPromptly(ssh_get_fd(m_session));
        ssh_event_dopoll(m_event.get(), timeoutMs);
    }

private:
    ssh_session m_session;
    EventHandle m_event;
};

} // namespace

RunResult runCommand(Session& session, const QByteArray& command, const QByteArray& stdinData, int timeoutMs)
{
    RunResult result;
    const QDeadlineTimer deadline(timeoutMs);
    const QString label = session.endpoint().label();
    PolledSession polled(session.handle());
    ExecChannel channel(session.handle(), command); // freed before `polled` ends
    channel.write(stdinData);
    channel.closeStdin();
    for (;;) {
        channel.advance();
        result.out += channel.takeStdout();
        result.err += channel.takeStderr();
        if (channel.state() == ExecChannel::State::Failed) {
            result.error = label + QStringLiteral(": ") + channel.error();
            result.kind = FailureKind::Other;
            return result;
        }
        if (channel.state() == ExecChannel::State::Closed) {
            result.exitStatus = channel.exitStatus();
            result.exitSignal = channel.exitSignal();
            return result;
        }
        if (!session.isAlive()) {
            result.error = QObject::tr("%1: the connection was lost while running `%2` (%3)")
                               .arg(label, QString::fromUtf8(command), session.lastError());
            result.kind = FailureKind::Lost;
            return result;
        }
        if (deadline.hasExpired()) {
            result.error = QObject::tr("%1: `%2` did not finish within %3 s")
                               .arg(label, QString::fromUtf8(command)).arg(timeoutMs / 1000.0);
            result.kind = FailureKind::TimedOut;
            return result;
        }
        polled.poll(int(std::clamp<qint64>(deadline.remainingTime(), 1, 200)));
    }
}

} // namespace strata::app::ssh
