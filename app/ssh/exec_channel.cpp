#include "app/ssh/exec_channel.h"

#include <QObject>

#include <algorithm>

namespace strata::app::ssh {

namespace {
// At most this much is handed to libssh in one write (it packs it into packets of the
// peer's maximum size); the rest waits for the next turn, so one channel's stdin never
// starves the others.
constexpr qsizetype kWriteChunk = 1 << 20;
} // namespace

ExecChannel::ExecChannel(ssh_session session, QByteArray command)
    : m_channel(ssh_channel_new(session)), m_command(std::move(command))
{
    if (!m_channel) {
        fail(QObject::tr("could not make a channel"), session);
        return;
    }
    m_callbacks.userdata = this;
    m_callbacks.channel_data_function = &ExecChannel::onData;
    m_callbacks.channel_exit_status_function = &ExecChannel::onExitStatus;
    m_callbacks.channel_exit_signal_function = &ExecChannel::onExitSignal;
    m_callbacks.channel_close_function = &ExecChannel::onClose;
    ssh_callbacks_init(&m_callbacks);
    ssh_set_channel_callbacks(m_channel.get(), &m_callbacks);
}

ExecChannel::~ExecChannel()
{
    // Whatever arrives before the host's CLOSE goes to libssh's buffers, not to us.
    if (m_channel)
        ssh_remove_channel_callbacks(m_channel.get(), &m_callbacks);
}

int ExecChannel::onData(ssh_session, ssh_channel, void* data, uint32_t len, int isStderr, void* self)
{
    auto* c = static_cast<ExecChannel*>(self);
    (isStderr ? c->m_stderr : c->m_stdout).append(static_cast<const char*>(data), qsizetype(len));
    return int(len);
}

void ExecChannel::onExitStatus(ssh_session, ssh_channel, int status, void* self)
{
    static_cast<ExecChannel*>(self)->m_exitStatus = status;
}

void ExecChannel::onExitSignal(ssh_session, ssh_channel, const char* signal, int, const char*, const char*, void* self)
{
    static_cast<ExecChannel*>(self)->m_exitSignal = QString::fromLatin1(signal);
}

void ExecChannel::onClose(ssh_session, ssh_channel, void* self)
{
    static_cast<ExecChannel*>(self)->m_remoteClosed = true;
}

void ExecChannel::fail(const QString& what, ssh_session session)
{
    m_state = State::Failed;
    m_error = session ? QStringLiteral("%1: %2").arg(what, QString::fromUtf8(ssh_get_error(session))) : what;
}

void ExecChannel::write(const QByteArray& data)
{
    if (data.isEmpty() || m_eofWanted)
        return;
    m_input.push_back(data);
    m_queued += data.size();
}

void ExecChannel::advance()
{
    ssh_channel c = m_channel.get();
    if (m_state == State::Opening) {
        const int rc = ssh_channel_open_session(c);
        if (rc == SSH_AGAIN)
            return;
        if (rc != SSH_OK)
            return fail(QObject::tr("the host would not open a channel (its sshd allows MaxSessions channels on "
                                    "one connection, 10 by default)"),
                        ssh_channel_get_session(c));
        m_state = State::Starting;
    }
    if (m_state == State::Starting) {
        const int rc = ssh_channel_request_exec(c, m_command.constData());
        if (rc == SSH_AGAIN)
            return;
        if (rc != SSH_OK)
            return fail(QObject::tr("the host would not run the command"), ssh_channel_get_session(c));
        m_state = State::Running;
    }
    if (m_state != State::Running)
        return;
    while (!m_signals.empty()) {
        ssh_channel_request_send_signal(c, m_signals.front().constData());
        m_signals.pop_front();
    }
    writeQueued();
    if (m_eofWanted && !m_eofSent && m_queued == 0 && !m_remoteClosed) {
        ssh_channel_send_eof(c);
        m_eofSent = true;
    }
}

void ExecChannel::writeQueued()
{
    ssh_channel c = m_channel.get();
    while (!m_input.empty() && !m_remoteClosed) {
        const QByteArray& front = m_input.front();
        const qsizetype window = qsizetype(ssh_channel_window_size(c));
        const qsizetype n = std::min({front.size() - m_inputOffset, window, kWriteChunk});
        if (n <= 0)
            return; // the window opens again with the host's next adjust, which wakes the poll
        const int written = ssh_channel_write(c, front.constData() + m_inputOffset, uint32_t(n));
        if (written <= 0) {
            // The channel is closing: nothing more will be read from it.
            m_input.clear();
            m_queued = 0;
            return;
        }
        m_inputOffset += written;
        m_queued -= written;
        if (m_inputOffset == front.size()) {
            m_input.pop_front();
            m_inputOffset = 0;
        }
    }
}

} // namespace strata::app::ssh
