#pragma once
// Connection: one SSH connection to a node for the GUI thread, carrying any number of exec
// channels (one per task on that node). It owns a Session on a thread of its own
// (session_loop.h); nothing here blocks, and every result arrives as a signal on the thread
// the Connection lives in.
//
// Lifecycle: open() connects (prompting through the Prompter, on the connection's thread)
// and ends in connected() or failed(). exec() may be called before: the channels start once
// connected (and are closed at once, exit status -1, if the connect fails). After
// connected(), the connection lasts until drop() or until it breaks: lost(), then
// channelClosed(id, -1, "") for every channel still open. Destroying a Connection drops it.
//
// Channels: exec() runs a command through the remote user's shell, writes the stdin bytes
// first, and keeps stdin open for write() until closeStdin() (what is written after is
// dropped). On an ended connection a channel fails at once (channelFailed, channelClosed).
// Output comes in batches as it
// is read (channelStdout/channelStderr: any split, never per line); channelClosed() comes
// once per channel, last, with the exit status (-1 when none came) and the signal that
// ended the command ("TERM"; empty when none).
//
// Threads: use it from the thread it lives in. The Prompter is called on the connection's
// thread and must return for drop() or the destructor to end the connect.

#include "app/ssh/endpoint.h"
#include "app/ssh/failure.h"
#include "app/ssh/session.h"
#include "app/ssh/session_loop.h"

#include <QObject>
#include <QThread>

#include <memory>

namespace strata::app::ssh {

class Connection : public QObject {
    Q_OBJECT

public:
    enum class State { Idle, Connecting, Connected, Ended };

    Connection(const Endpoint& endpoint, const SessionOptions& options, Prompter* prompter, QObject* parent = nullptr);
    ~Connection() override;

    void open();
    // A new channel's id (from 1); see above.
    int exec(const QByteArray& command, const QByteArray& stdinData = {});
    void write(int id, const QByteArray& data);
    void closeStdin(int id);
    // Closes the channel now (the remote command sees its pipes close); channelClosed follows.
    void closeChannel(int id);
    // Sends a signal ("TERM", "INT", "KILL": names without SIG) to the channel's command.
    // OpenSSH ignores it for root logins (it needs privilege separation, which sshd drops
    // after a root login): there, end the command with closeChannel() or a second command.
    void sendSignal(int id, const QByteArray& name);
    // Abandons the connection at once, without waiting on the peer (the socket is shut down):
    // returns immediately; lost() (failed() while still connecting) and the channels'
    // channelClosed() follow within moments, even when the network is gone.
    void drop();

    const Endpoint& endpoint() const { return m_endpoint; }
    State state() const { return m_state; }

Q_SIGNALS:
    void connected();
    void failed(const QString& message, strata::app::ssh::FailureKind kind);
    // Something went wrong without stopping the connection (a secret that could not be remembered).
    void warning(const QString& message);
    void channelStdout(int id, const QByteArray& data);
    void channelStderr(int id, const QByteArray& data);
    // The channel could not be opened or the command not started; channelClosed follows.
    void channelFailed(int id, const QString& message);
    void channelClosed(int id, int exitStatus, const QString& exitSignal);
    void lost(const QString& reason);

private:
    void post(SessionLoop::Command command);
    void deliver(const std::vector<SessionLoop::Report>& reports);

    Endpoint m_endpoint;
    std::shared_ptr<SessionLoop> m_loop;
    std::unique_ptr<QThread> m_thread;
    State m_state = State::Idle;
    int m_lastId = 0;
};

} // namespace strata::app::ssh
