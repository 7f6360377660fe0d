#include "app/ssh/session_loop.h"

#include "app/ssh/exec_channel.h"
#include "app/ssh/interrupter.h"
#include "app/ssh/tcp_connect.h"

#include <QObject>

#include <cstdint>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace strata::app::ssh {

namespace {

// The longest wait in the poll when nothing happens (nothing needs it: every event wakes
// the poll; this only bounds the damage of a missed wake-up).
constexpr int kIdleMs = 500;

int drainWake(socket_t fd, int, void*)
{
    uint64_t count = 0;
    [[maybe_unused]] const ssize_t n = ::read(fd, &count, sizeof count);
    return 0;
}

// The session polled through an event with the wake-up descriptor beside it.
class Poller {
public:
    Poller(ssh_session session, int wakeFd) : m_session(session), m_wakeFd(wakeFd), m_event(ssh_event_new())
    {
        ssh_event_add_session(m_event.get(), session);
        ssh_event_add_fd(m_event.get(), wakeFd, POLLIN, &drainWake, nullptr);
        ssh_set_counters(session, nullptr, &m_packets);
    }
    ~Poller()
    {
        ssh_set_counters(m_session, nullptr, nullptr);
        ssh_event_remove_fd(m_event.get(), m_wakeFd);
        ssh_event_remove_session(m_event.get(), m_session);
    }
    Poller(const Poller&) = delete;
    Poller& operator=(const Poller&) = delete;

    // SSH_OK when something happened, SSH_AGAIN after `timeoutMs` of nothing.
    int poll(int timeoutMs)
    {
        ackPromptly(ssh_get_fd(m_session));
        return ssh_event_dopoll(m_event.get(), timeoutMs);
    }
    // SSH packets read so far, by the poll or by any other libssh call.
    uint64_t packetsRead() const { return m_packets.in_packets; }

private:
    ssh_session m_session;
    int m_wakeFd;
    EventHandle m_event;
    ssh_counter_struct m_packets{};
};

} // namespace

SessionLoop::SessionLoop(const Endpoint& endpoint, const SessionOptions& options, Prompter* prompter, Sink sink)
    : m_endpoint(endpoint), m_options(options), m_prompter(prompter), m_sink(std::move(sink)),
      m_wakeFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))
{
    if (!m_options.interrupter)
        m_options.interrupter = std::make_shared<Interrupter>();
}

SessionLoop::~SessionLoop()
{
    if (m_wakeFd >= 0)
        ::close(m_wakeFd);
}

void SessionLoop::wake()
{
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(m_wakeFd, &one, sizeof one);
}

void SessionLoop::post(Command command)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_ended) {
            m_commands.push_back(std::move(command));
            wake();
            return;
        }
    }
    if (command.kind == Command::Exec)
        m_sink({{Report::ChannelFailed, command.id, {}, QObject::tr("%1: the connection has ended").arg(m_endpoint.label())},
                {Report::ChannelClosed, command.id, {}, {}, -1}});
}

void SessionLoop::end(std::vector<Report>& reports)
{
    std::lock_guard lock(m_mutex);
    m_ended = true;
    for (const Command& c : std::exchange(m_commands, {}))
        if (c.kind == Command::Exec)
            reports.push_back({Report::ChannelClosed, c.id, {}, {}, -1});
}

void SessionLoop::stop()
{
    m_stopped = true;
    m_options.interrupter->interrupt();
    wake();
}

std::deque<SessionLoop::Command> SessionLoop::takeCommands()
{
    std::lock_guard lock(m_mutex);
    return std::exchange(m_commands, {});
}

void SessionLoop::run()
{
    QString error;
    FailureKind kind = FailureKind::None;
    std::unique_ptr<Session> session = Session::connect(m_endpoint, m_options, m_prompter, &error, &kind);
    if (!session) {
        std::vector<Report> reports{{Report::Failed, 0, {}, error, -1, kind}};
        end(reports);
        m_sink(std::move(reports));
        return;
    }
    std::vector<Report> reports{{Report::Connected}};
    for (const QString& warning : session->warnings())
        reports.push_back({Report::Warning, 0, {}, warning});
    m_sink(std::move(reports));
    serve(*session);
}

void SessionLoop::serve(Session& session)
{
    ssh_session s = session.handle();
    ssh_set_blocking(s, 0);
    Poller poller(s, m_wakeFd);
    Channels channels; // declared after the poller: freed first, while the session polls
    const QString label = m_endpoint.label();
    QString lost;
    std::vector<Report> reports;
    for (;;) {
        for (Command& c : takeCommands())
            apply(s, c, channels, reports);
        if (m_stopped) {
            lost = QObject::tr("%1: the connection was dropped").arg(label);
            break;
        }
        // Moving a channel on may read packets for any channel (libssh reads whatever comes):
        // first every channel, then what each has.
        const uint64_t packetsBefore = poller.packetsRead();
        for (auto& [id, c] : channels)
            c->advance();
        for (auto it = channels.begin(); it != channels.end();) {
            ExecChannel& c = *it->second;
            takeOutput(it->first, c, reports);
            if (c.state() == ExecChannel::State::Failed) {
                reports.push_back({Report::ChannelFailed, it->first, {}, label + QStringLiteral(": ") + c.error()});
                reports.push_back({Report::ChannelClosed, it->first, {}, {}, -1});
                it = channels.erase(it);
            } else if (c.state() == ExecChannel::State::Closed) {
                reports.push_back({Report::ChannelClosed, it->first, {}, c.exitSignal(), c.exitStatus()});
                it = channels.erase(it);
            } else {
                ++it;
            }
        }
        if (!session.isAlive()) {
            // stop() shuts the socket down, which may break a call under way first.
            lost = m_stopped ? QObject::tr("%1: the connection was dropped").arg(label)
                             : QObject::tr("%1: the connection was lost (%2)").arg(label, session.lastError());
            break;
        }
        if (!reports.empty())
            m_sink(std::exchange(reports, {}));

        // Packets read while moving the channels on (a channel opened, a command started)
        // mean another turn at once: the socket has nothing more to wake the poll with.
        poller.poll(poller.packetsRead() != packetsBefore ? 0 : kIdleMs);
        // A read burst: what is ready now (libssh reads 4 KiB a turn), up to kBurstBytes,
        // goes out as one batch.
        for (;;) {
            qsizetype buffered = 0;
            for (const auto& [id, c] : channels)
                buffered += c->bufferedOutput();
            if (buffered >= kBurstBytes || m_stopped || poller.poll(0) != SSH_OK)
                break;
        }
    }
    for (auto& [id, c] : channels)
        takeOutput(id, *c, reports);
    reports.push_back({Report::Lost, 0, {}, lost});
    for (const auto& [id, c] : channels)
        reports.push_back({Report::ChannelClosed, id, {}, {}, -1});
    channels.clear();
    end(reports);
    m_sink(std::move(reports));
}

void SessionLoop::apply(ssh_session session, Command& command, Channels& channels, std::vector<Report>& reports)
{
    if (command.kind == Command::Exec) {
        auto channel = std::make_unique<ExecChannel>(session, command.data);
        channel->write(command.stdinData);
        channels[command.id] = std::move(channel);
        return;
    }
    const auto it = channels.find(command.id);
    if (it == channels.end())
        return; // closed already
    ExecChannel& c = *it->second;
    switch (command.kind) {
    case Command::Write: c.write(command.data); break;
    case Command::CloseStdin: c.closeStdin(); break;
    case Command::Signal: c.sendSignal(command.data); break;
    case Command::Close:
        takeOutput(command.id, c, reports);
        reports.push_back({Report::ChannelClosed, command.id, {}, c.exitSignal(), c.exitStatus()});
        channels.erase(it);
        break;
    case Command::Exec: break;
    }
}

void SessionLoop::takeOutput(int id, ExecChannel& channel, std::vector<Report>& reports)
{
    if (QByteArray out = channel.takeStdout(); !out.isEmpty())
        reports.push_back({Report::Stdout, id, std::move(out)});
    if (QByteArray err = channel.takeStderr(); !err.isEmpty())
        reports.push_back({Report::Stderr, id, std::move(err)});
}

} // namespace strata::app::ssh
