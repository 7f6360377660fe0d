#pragma once
// ExecChannel: one command run on a session through an exec channel (the remote user's
// shell runs it), driven without blocking: each advance() moves it on as far as it can
// (open, start the command, write queued stdin as the window allows, EOF when asked), and
// the session's poll (ssh_event_dopoll) delivers its output into buffers through libssh's
// callbacks, in whole packets, with no per-byte work.
//
// The session must be in non-blocking mode while the channel lives, and outlive it; one
// thread (the session's) uses both. Freeing it closes the channel (sending EOF and CLOSE
// without waiting).

#include "app/ssh/handles.h"

#include <libssh/callbacks.h>

#include <QByteArray>
#include <QString>

#include <deque>

namespace strata::app::ssh {

class ExecChannel {
public:
    enum class State {
        Opening,  // asking the host for a channel
        Starting, // asking it to run the command
        Running,
        Closed,   // the host closed it (the command ended); output may still be waiting to be taken
        Failed,   // could not be opened or started (see error())
    };

    ExecChannel(ssh_session session, QByteArray command);
    ~ExecChannel();
    ExecChannel(const ExecChannel&) = delete;
    ExecChannel& operator=(const ExecChannel&) = delete;

    void advance();
    // Closed as soon as the host's CLOSE was read, whichever call read it.
    State state() const { return m_state == State::Running && m_remoteClosed ? State::Closed : m_state; }
    QString error() const { return m_error; }

    // Queued until the command runs and the window lets it through.
    void write(const QByteArray& data);
    // EOF on the command's stdin once everything queued is written.
    void closeStdin() { m_eofWanted = true; }
    // A signal by name without "SIG" ("TERM", "KILL"), once the command runs.
    void sendSignal(const QByteArray& name) { m_signals.push_back(name); }

    QByteArray takeStdout() { return std::exchange(m_stdout, {}); }
    QByteArray takeStderr() { return std::exchange(m_stderr, {}); }
    qsizetype bufferedOutput() const { return m_stdout.size() + m_stderr.size(); }

    // The command's exit status (-1 while none came) and the signal that ended it (empty: none).
    int exitStatus() const { return m_exitStatus; }
    QString exitSignal() const { return m_exitSignal; }

private:
    static int onData(ssh_session, ssh_channel, void* data, uint32_t len, int isStderr, void* self);
    static void onExitStatus(ssh_session, ssh_channel, int status, void* self);
    static void onExitSignal(ssh_session, ssh_channel, const char* signal, int core, const char* message,
                             const char* language, void* self);
    static void onClose(ssh_session, ssh_channel, void* self);
    void fail(const QString& what, ssh_session session);
    void writeQueued();

    ssh_channel_callbacks_struct m_callbacks{};
    ChannelHandle m_channel;
    QByteArray m_command;
    State m_state = State::Opening;
    QString m_error;
    std::deque<QByteArray> m_input;
    qsizetype m_inputOffset = 0; // into m_input.front()
    qsizetype m_queued = 0;
    bool m_eofWanted = false;
    bool m_eofSent = false;
    bool m_remoteClosed = false;
    std::deque<QByteArray> m_signals;
    QByteArray m_stdout, m_stderr;
    int m_exitStatus = -1;
    QString m_exitSignal;
};

} // namespace strata::app::ssh
