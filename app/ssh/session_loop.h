#pragma once
// SessionLoop: the thread side of a Connection. run() connects a Session (prompts and all),
// then serves exec channels on it until the connection breaks or stop() is called: it
// applies the commands other threads post, moves every channel on, and waits in
// ssh_event_dopoll on the session's socket and an eventfd that post() and stop() signal,
// so that a queued write goes out at once, with no sleeping and no busy polling. What
// happens comes back in batches, in order, through the sink: one batch per read burst
// (up to kBurstBytes of output), so that a fast stream costs few cross-thread hand-overs.
//
// post() and stop() may be called from any thread; run() runs on the loop's own thread,
// and the sink is called there (and by post() after the end, on the caller's thread).
//
// Writes go out through libssh, which writes its socket in blocking mode once poll said it
// can take data: a peer that stops reading can hold the loop in a write until it reads again
// or the dead-peer timeout ends the connection; stop() breaks such a write at once.

#include "app/ssh/endpoint.h"
#include "app/ssh/failure.h"
#include "app/ssh/session.h"

#include <QByteArray>
#include <QString>

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace strata::app::ssh {

class ExecChannel;

class SessionLoop {
public:
    struct Command {
        enum Kind { Exec, Write, CloseStdin, Close, Signal } kind;
        int id = 0;
        QByteArray data; // the command line, the bytes, the signal's name
        QByteArray stdinData; // with Exec
    };
    struct Report {
        enum Kind { Connected, Failed, Warning, Stdout, Stderr, ChannelFailed, ChannelClosed, Lost } kind;
        int id = 0;
        QByteArray data;
        QString text; // a message, or the exit signal
        int exitStatus = -1;
        FailureKind failure = FailureKind::None; // with Failed
    };
    using Sink = std::function<void(std::vector<Report>)>;

    // Output gathered before a batch goes out even while more is ready to be read.
    static constexpr qsizetype kBurstBytes = 1 << 20;

    SessionLoop(const Endpoint& endpoint, const SessionOptions& options, Prompter* prompter, Sink sink);
    ~SessionLoop();
    SessionLoop(const SessionLoop&) = delete;
    SessionLoop& operator=(const SessionLoop&) = delete;

    // Once run() has ended, an Exec is answered at once (ChannelFailed, ChannelClosed) and
    // the rest is ignored.
    void post(Command command);
    // Abandons the connection now (or the connect under way): the socket is shut down, so
    // nothing waits on the peer. run() then reports Lost (Failed while still connecting).
    void stop();
    void run();

private:
    using Channels = std::map<int, std::unique_ptr<ExecChannel>>;
    void wake();
    std::deque<Command> takeCommands();
    // Marks the loop ended and closes the channels asked for that never ran.
    void end(std::vector<Report>& reports);
    void apply(ssh_session session, Command& command, Channels& channels, std::vector<Report>& reports);
    void serve(Session& session);
    static void takeOutput(int id, ExecChannel& channel, std::vector<Report>& reports);

    Endpoint m_endpoint;
    SessionOptions m_options;
    Prompter* m_prompter;
    Sink m_sink;
    int m_wakeFd;
    std::mutex m_mutex;
    std::deque<Command> m_commands;
    bool m_ended = false; // under m_mutex
    std::atomic<bool> m_stopped{false};
};

} // namespace strata::app::ssh
