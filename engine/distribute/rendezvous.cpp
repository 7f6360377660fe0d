#include "strata/distribute/rendezvous.h"

#include "strata/core/posix_handles.h"
#include "strata/core/seconds_text.h"
#include "strata/distribute/communicator.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace strata::distribute {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A peer that authenticates has this long to send its first frame.
constexpr milliseconds kFirstFrameWithin{5000};
// Connections not yet authenticated, at most: more are closed at once.
constexpr int kMaxUnauthenticated = 32;

std::string errnoText() { return std::strerror(errno); }

// Waits until `fd` is readable or `deadline`; false on timeout or when `stop` is set.
bool waitReadable(int fd, Clock::time_point deadline, const std::atomic<bool>* stop)
{
    while (true) {
        const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
        if (left <= 0 || (stop && stop->load()))
            return false;
        pollfd p{fd, POLLIN, 0};
        const int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 200)));
        if (r > 0)
            return true;
        if (r < 0 && errno != EINTR)
            return false;
    }
}

// Reads exactly `n` bytes before `deadline`; false on EOF, error, timeout or stop.
bool readExact(int fd, char* out, size_t n, Clock::time_point deadline, const std::atomic<bool>* stop)
{
    while (n > 0) {
        if (!waitReadable(fd, deadline, stop))
            return false;
        const ssize_t got = ::recv(fd, out, n, 0);
        if (got <= 0) {
            if (got < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            return false;
        }
        out += got;
        n -= static_cast<size_t>(got);
    }
    return true;
}

bool writeAll(int fd, const std::string& bytes)
{
    size_t sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        sent += static_cast<size_t>(n);
    }
    return true;
}

// Reads one frame's rest into `frame`; false on EOF, error, timeout, stop, or a header that
// declares more than a frame may hold. The buffer grows with what arrives, never ahead of
// it by more than a chunk: a header alone cannot make it allocate the most a frame may hold.
bool readFrame(int fd, std::string& frame, Clock::time_point deadline, const std::atomic<bool>* stop)
{
    constexpr size_t kChunk = 64 << 10;
    char header[4];
    if (!readExact(fd, header, 4, deadline, stop))
        return false;
    const std::optional<uint32_t> length = rendezvousFrameLength(header);
    if (!length)
        return false;
    // An empty frame is a valid answer (no lost tasks); a request needs more (parseRendezvousRequest).
    frame.clear();
    while (frame.size() < *length) {
        const size_t at = frame.size();
        frame.resize(at + std::min<size_t>(*length - at, kChunk));
        if (!readExact(fd, frame.data() + at, frame.size() - at, deadline, stop))
            return false;
    }
    return true;
}

// Compares without leaking where the first difference is.
bool sameToken(const std::string& given, const std::string& token)
{
    if (given.size() != token.size())
        return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < token.size(); ++i)
        diff |= static_cast<unsigned char>(given[i] ^ token[i]);
    return diff == 0;
}

// The addresses of host:port; throws IoError naming the host when it cannot be resolved.
AddressList resolve(const std::string& host, int port, bool passive)
{
    AddressList list(host, std::to_string(port), SOCK_STREAM, passive ? AI_PASSIVE : 0);
    if (!list.ok())
        throw IoError("cannot resolve " + host + ": " + list.error());
    return list;
}

std::string address(const std::string& host, int port)
{
    return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// The numeric address of a connected socket's peer; empty when it cannot be read.
std::string peerAddress(int fd)
{
    sockaddr_storage peer{};
    socklen_t size = sizeof peer;
    char host[NI_MAXHOST] = {};
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &size) != 0 ||
        ::getnameinfo(reinterpret_cast<sockaddr*>(&peer), size, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0)
        return {};
    return host;
}

// The rank a Gloo key stands for ("3", "prefix/3"), or -1.
int rankOfKey(const std::string& key)
{
    const std::string tail = key.substr(key.rfind('/') == std::string::npos ? 0 : key.rfind('/') + 1);
    if (tail.empty() || !std::all_of(tail.begin(), tail.end(), ::isdigit) || tail.size() > 6)
        return -1;
    return std::stoi(tail);
}

} // namespace

RendezvousServer::RendezvousServer(const std::string& host, int port, std::string token, milliseconds silentAfter)
    : m_token(std::move(token)), m_silentAfter(silentAfter)
{
    STRATA_CHECK(!m_token.empty(), "a rendezvous needs the job's token");
    std::string lastError = "no address";
    for (const addrinfo& a : resolve(host, port, true)) {
        UniqueFd fd(::socket(a.ai_family, a.ai_socktype | SOCK_CLOEXEC, a.ai_protocol));
        if (!fd.valid())
            continue;
        const int one = 1;
        ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (::bind(fd.get(), a.ai_addr, a.ai_addrlen) != 0 || ::listen(fd.get(), 64) != 0) {
            lastError = errnoText();
            continue;
        }
        sockaddr_storage bound{};
        socklen_t len = sizeof bound;
        ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &len);
        m_port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                   : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
        m_listenFd = std::move(fd);
        break;
    }
    if (!m_listenFd.valid())
        throw IoError("cannot listen for the rendezvous on " + address(host, port) + ": " + lastError);
    m_acceptThread = std::thread([this] { acceptLoop(); });
}

RendezvousServer::~RendezvousServer()
{
    m_stopping = true;
    ::shutdown(m_listenFd.get(), SHUT_RDWR); // wakes the accept loop now
    m_acceptThread.join();
    {
        std::lock_guard lock(m_mutex);
        for (int fd : m_clientFds)
            ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& t : m_threads)
        t.join();
}

void RendezvousServer::acceptLoop()
{
    while (!m_stopping) {
        if (!waitReadable(m_listenFd.get(), Clock::now() + milliseconds(200), &m_stopping))
            continue;
        UniqueFd fd(::accept4(m_listenFd.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (!fd.valid())
            continue;
        if (m_unauthenticated.load() >= kMaxUnauthenticated) {
            ++m_refused;
            continue;
        }
        const int one = 1;
        ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ++m_unauthenticated;
        std::lock_guard lock(m_mutex);
        m_clientFds.push_back(fd.get());
        // Finished threads are joined at the end: a job sees a handful of connections, and a
        // flood of bad ones is limited above.
        m_threads.emplace_back([this, connection = std::move(fd)]() mutable { serve(std::move(connection)); });
    }
}

void RendezvousServer::serve(UniqueFd connection)
{
    const int fd = connection.get();
    std::string task;
    std::string frame;
    bool authenticated = false;
    while (true) {
        const auto deadline = authenticated ? Clock::time_point::max() - std::chrono::hours(1)
                                            : Clock::now() + kFirstFrameWithin;
        std::optional<RendezvousRequest> request;
        if (readFrame(fd, frame, deadline, &m_stopping))
            request = parseRendezvousRequest(frame);
        const bool ok = request && sameToken(request->token, m_token) && (authenticated || request->op == 'J') &&
                        !(request->op == 'J' && (authenticated || request->args.size() != 1 || request->args[0].empty()));
        if (!ok) {
            if (!authenticated && !m_stopping)
                ++m_refused;
            break;
        }
        const RendezvousRequest& r = *request;
        if (r.op == 'J') {
            authenticated = true;
            --m_unauthenticated;
            task = r.args[0];
        }
        const std::string reply = answer(task, r.op, r.args);
        if (r.op == 'J') {
            std::lock_guard lock(m_mutex);
            m_tasks[task].peer = peerAddress(fd);
        }
        if (!writeAll(fd, rendezvousFrame(reply)))
            break;
    }
    if (!authenticated)
        --m_unauthenticated;
    std::lock_guard lock(m_mutex);
    if (authenticated) {
        TaskState& s = m_tasks[task];
        s.connected = false;
        s.lostAt = Clock::now();
        m_left.notify_all();
    }
    // Out of the list before the descriptor closes: the destructor shuts down only live ones.
    std::erase(m_clientFds, fd);
}

std::string RendezvousServer::answer(const std::string& task, char op, const std::vector<std::string>& args)
{
    std::lock_guard lock(m_mutex);
    TaskState& state = m_tasks[task];
    state.lastSeen = Clock::now();
    switch (op) {
    case 'J':
        state = TaskState{};
        state.connected = true;
        state.lastSeen = Clock::now();
        return "ok";
    case 'S':
        if (args.size() == 2)
            m_values[args[0]] = std::vector<char>(args[1].begin(), args[1].end());
        return "ok";
    case 'G': {
        if (args.size() != 1)
            return "0";
        const auto it = m_values.find(args[0]);
        if (it == m_values.end())
            return "0";
        std::string found(1, '1');
        found.append(it->second.begin(), it->second.end());
        return found;
    }
    case 'B':
        if (!args.empty() && !args[0].empty()) {
            state.failure = args[0].substr(0, 500);
            state.lostAt = Clock::now();
        } else {
            state.saidGoodbye = true;
        }
        m_left.notify_all();
        return "ok";
    case 'L': {
        std::string text;
        for (const auto& line : lostTasksLocked())
            text += line + "\n";
        return text;
    }
    case 'T': // a heartbeat that asks the time
        return std::to_string(systemMicroseconds());
    default: // 'P': the heartbeat
        return "ok";
    }
}

void RendezvousServer::waitUntilAllLeft(std::chrono::milliseconds timeout)
{
    std::unique_lock lock(m_mutex);
    m_left.wait_for(lock, timeout, [this] {
        return std::all_of(m_tasks.begin(), m_tasks.end(), [](const auto& t) {
            return t.second.saidGoodbye || !t.second.failure.empty() || !t.second.connected;
        });
    });
}

std::vector<std::string> RendezvousServer::lostTasks() const
{
    std::lock_guard lock(m_mutex);
    return lostTasksLocked();
}

std::vector<std::string> RendezvousServer::lostTasksLocked() const
{
    std::vector<std::pair<Clock::time_point, std::string>> lost;
    const auto now = Clock::now();
    for (const auto& [name, s] : m_tasks) {
        // "worker:1 (on 198.18.2.2: ...)": which host, for a job across several.
        const std::string on = s.peer.empty() ? "" : "on " + s.peer + ": ";
        if (!s.failure.empty())
            lost.emplace_back(s.lostAt, name + " (" + on + "failed: " + s.failure + ")");
        else if (!s.connected && !s.saidGoodbye)
            lost.emplace_back(s.lostAt, name + " (" + on + "connection lost without a goodbye: killed or crashed)");
        else if (s.connected && now - s.lastSeen > m_silentAfter)
            lost.emplace_back(s.lastSeen, name + " (" + on + "not responding for " +
                                              std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                                                 now - s.lastSeen).count()) +
                                              " s: stopped or hung)");
    }
    std::sort(lost.begin(), lost.end());
    std::vector<std::string> out;
    for (auto& [when, text] : lost)
        out.push_back(std::move(text));
    return out;
}

RendezvousClient::RendezvousClient(const std::string& host, int port, std::string token,
                                   std::vector<std::string> taskNames, int rank, milliseconds timeout)
    : m_host(host), m_port(port), m_token(std::move(token)), m_taskNames(std::move(taskNames)), m_rank(rank),
      m_timeout(timeout)
{
    STRATA_CHECK(rank >= 0 && rank < static_cast<int>(m_taskNames.size()), "rank outside the task list");
    const auto deadline = Clock::now() + m_timeout;
    std::string lastError;
    while (!m_fd.valid()) {
        const AddressList addresses(host, std::to_string(port), SOCK_STREAM, 0);
        if (!addresses.ok())
            throw CollectiveError("rendezvous: cannot resolve " + host + ": " + addresses.error());
        for (const addrinfo& a : addresses) {
            UniqueFd fd(::socket(a.ai_family, a.ai_socktype | SOCK_CLOEXEC, a.ai_protocol));
            if (fd.valid() && ::connect(fd.get(), a.ai_addr, a.ai_addrlen) == 0) {
                m_fd = std::move(fd);
                break;
            }
            lastError = errnoText();
        }
        if (m_fd.valid())
            break;
        if (Clock::now() >= deadline)
            throw CollectiveError("cannot reach the rendezvous of " + m_taskNames[0] + " at " + address(host, port) +
                                  " within " + secondsText(double(m_timeout.count()) / 1000.0) + " (" + lastError + "): is " + m_taskNames[0] + " running?");
        std::this_thread::sleep_for(milliseconds(50));
    }
    const int one = 1;
    ::setsockopt(m_fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    request('J', {m_taskNames[static_cast<size_t>(m_rank)]});
    // A few exchanges now, so that the first step already has a good estimate.
    for (size_t i = 0; i < ClockOffset::kSamples / 2; ++i)
        sampleClock();
    m_heartbeat = std::thread([this] { heartbeatLoop(); });
}

RendezvousClient::~RendezvousClient()
{
    {
        std::lock_guard lock(m_stopMutex);
        m_stopping = true;
    }
    m_stopChanged.notify_all();
    m_heartbeat.join();
}

std::string RendezvousClient::request(char op, const std::vector<std::string>& args)
{
    std::lock_guard lock(m_mutex);
    std::string reply;
    if (!writeAll(m_fd.get(), encodeRendezvousRequest(m_token, op, args)) ||
        !readFrame(m_fd.get(), reply, Clock::now() + m_timeout, nullptr))
        throw CollectiveError("lost the rendezvous of " + m_taskNames[0] + " at " + address(m_host, m_port) +
                              ": " + m_taskNames[0] + " is gone");
    return reply;
}

void RendezvousClient::heartbeatLoop()
{
    while (true) {
        {
            std::unique_lock lock(m_stopMutex);
            if (m_stopChanged.wait_for(lock, milliseconds(500), [this] { return m_stopping.load(); }))
                return;
        }
        try {
            sampleClock();
        } catch (const CollectiveError&) {
            return; // the next real request reports it
        }
    }
}

void RendezvousClient::sampleClock()
{
    const int64_t sent = systemMicroseconds();
    const std::string reply = request('T', {});
    const int64_t received = systemMicroseconds();
    int64_t peer = 0;
    const auto [end, error] = std::from_chars(reply.data(), reply.data() + reply.size(), peer);
    if (error == std::errc() && end == reply.data() + reply.size())
        m_clock.add(sent, peer, received);
}

void RendezvousClient::set(const std::string& key, const std::vector<char>& data)
{
    request('S', {key, std::string(data.begin(), data.end())});
}

std::vector<char> RendezvousClient::get(const std::string& key)
{
    wait({key});
    const std::optional<std::string> value = readRendezvousValue(request('G', {key}));
    if (!value)
        throw CollectiveError("rendezvous: the key " + key + " vanished after it was set");
    return {value->begin(), value->end()};
}

void RendezvousClient::wait(const std::vector<std::string>& keys) { wait(keys, m_timeout); }

void RendezvousClient::wait(const std::vector<std::string>& keys, const milliseconds& asked)
{
    const milliseconds timeout = m_joinAllowance.count() > 0 ? m_joinAllowance : asked;
    const auto deadline = Clock::now() + timeout;
    std::vector<std::string> missing = keys;
    while (true) {
        std::erase_if(missing, [this](const std::string& key) { return readRendezvousValue(request('G', {key})).has_value(); });
        if (missing.empty())
            return;
        if (Clock::now() >= deadline)
            break;
        std::this_thread::sleep_for(milliseconds(10));
    }
    std::string names;
    for (const auto& key : missing) {
        const int rank = rankOfKey(key);
        names += (names.empty() ? "" : ", ") +
                 (rank >= 0 && rank < static_cast<int>(m_taskNames.size()) ? m_taskNames[static_cast<size_t>(rank)]
                                                                           : "key " + key);
    }
    throw CollectiveError(names + " did not join the job within " + secondsText(double(timeout.count()) / 1000.0));
}

std::vector<std::string> RendezvousClient::lostTasks()
{
    try {
        return readRendezvousLostTasks(request('L', {}));
    } catch (const CollectiveError&) {
        return {m_taskNames[0] + " (the rendezvous it hosts at " + address(m_host, m_port) + " is gone)"};
    }
}

void RendezvousClient::goodbye(const std::string& failure)
{
    try {
        request('B', {failure});
    } catch (const CollectiveError&) {
        // Leaving anyway.
    }
}

} // namespace strata::distribute
