#include "ps/transport.h"

#include "strata/distribute/communicator.h"

#include <zmq_addon.hpp>

#include <arpa/inet.h>
#include <netdb.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>

namespace strata::ps {

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";

std::vector<zmq::message_t> encode(Message& m)
{
    std::vector<zmq::message_t> frames;
    frames.reserve(m.payload.size() + 1);
    frames.emplace_back(m.header.dump());
    for (auto& f : m.payload)
        frames.push_back(std::move(f));
    return frames;
}

size_t frameBytes(const std::vector<zmq::message_t>& frames)
{
    size_t n = 0;
    for (const auto& f : frames)
        n += f.size();
    return n;
}

void setCommonOptions(zmq::socket_t& s, int64_t maxFrameBytes)
{
    s.set(zmq::sockopt::linger, 0);
    s.set(zmq::sockopt::maxmsgsize, maxFrameBytes);
}

std::string monitorEndpoint()
{
    static std::atomic<int> counter{0};
    return "inproc://strata-ps-monitor-" + std::to_string(counter++);
}

} // namespace

std::optional<Message> decodeMessage(std::vector<zmq::message_t>& frames, size_t first)
{
    if (frames.size() <= first)
        return std::nullopt;
    Message m;
    m.header = Json::parse(frames[first].to_string_view(), nullptr, false);
    if (m.header.is_discarded() || !m.header.is_object())
        return std::nullopt;
    for (size_t i = first + 1; i < frames.size(); ++i)
        m.payload.push_back(std::move(frames[i]));
    return m;
}

void Message::add(std::span<const float> values) { payload.emplace_back(values.data(), values.size_bytes()); }

void Message::addView(std::span<const float> values)
{
    payload.emplace_back(const_cast<float*>(values.data()), values.size_bytes(), nullptr, nullptr);
}

void copyFrame(const zmq::message_t& frame, std::span<float> into, const std::string& what)
{
    if (frame.size() != into.size_bytes())
        throw distribute::CollectiveError(what + ": " + std::to_string(frame.size()) + " bytes where " +
                                    std::to_string(into.size_bytes()) + " were expected");
    std::memcpy(into.data(), frame.data(), frame.size());
}

size_t Message::bytes() const
{
    size_t n = 0;
    for (const auto& f : payload)
        n += f.size();
    return n;
}

std::string endpointOf(const std::string& host, int64_t port)
{
    std::string h = host;
    std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::tolower(c); });
    if (h == "localhost")
        h = "127.0.0.1";
    // ZeroMQ binds to addresses, not names: resolve a host name to its IPv4 address.
    in_addr ignored{};
    if (inet_pton(AF_INET, h.c_str(), &ignored) != 1 && h.find(':') == std::string::npos) {
        addrinfo hints{};
        hints.ai_family = AF_INET;
        addrinfo* found = nullptr;
        if (getaddrinfo(h.c_str(), nullptr, &hints, &found) != 0 || !found)
            throw distribute::CollectiveError("cannot resolve the host \"" + host + "\" of the cluster");
        char text[INET_ADDRSTRLEN] = {};
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, text, sizeof text);
        freeaddrinfo(found);
        h = text;
    }
    if (h.find(':') != std::string::npos)
        h = "[" + h + "]";
    return "tcp://" + h + ":" + std::to_string(port);
}

Server::Server(zmq::context_t& context, const CurveKeys& keys, const std::string& endpoint, int64_t maxFrameBytes)
    : m_keys(keys), m_endpoint(endpoint), m_router(context, zmq::socket_type::router),
      m_zap(context, zmq::socket_type::rep), m_monitor(context, zmq::socket_type::pair)
{
    m_zap.set(zmq::sockopt::linger, 0);
    m_zap.bind(kZapEndpoint);
    setCommonOptions(m_router, maxFrameBytes);
    m_router.set(zmq::sockopt::curve_server, true);
    m_router.set(zmq::sockopt::curve_secretkey, keys.serverSecret);
    m_router.set(zmq::sockopt::zap_domain, "strata");
    // A restarted worker reconnects under its old name: the new connection takes it over.
    m_router.set(zmq::sockopt::router_handover, true);
    // A message to a peer that is not connected fails instead of vanishing, so that a step is
    // never given to a worker that cannot receive it.
    m_router.set(zmq::sockopt::router_mandatory, true);
    const std::string monitor = monitorEndpoint();
    if (zmq_socket_monitor(m_router.handle(), monitor.c_str(),
                           ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                               ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) != 0)
        throw distribute::CollectiveError("cannot monitor the socket of " + endpoint);
    m_monitor.set(zmq::sockopt::linger, 0);
    m_monitor.connect(monitor);
    try {
        m_router.bind(endpoint);
    } catch (const zmq::error_t& e) {
        throw distribute::CollectiveError("cannot listen on " + endpoint.substr(6) + ": " + e.what() +
                                    " (is the port in use, or the address not this machine's?)");
    }
}

Server::~Server() { zmq_socket_monitor(m_router.handle(), nullptr, 0); }

void Server::answerAuthentication()
{
    std::vector<zmq::message_t> frames;
    if (!zmq::recv_multipart(m_zap, std::back_inserter(frames), zmq::recv_flags::dontwait))
        return;
    // ZAP 1.0: version, request id, domain, address, routing id, mechanism, credentials.
    bool accepted = false;
    if (frames.size() >= 7 && frames[5].to_string_view() == "CURVE" && frames[6].size() == 32) {
        std::array<char, 41> z85{};
        zmq_z85_encode(z85.data(), static_cast<const uint8_t*>(frames[6].data()), 32);
        accepted = std::string_view(z85.data(), 40) == m_keys.clientPublic;
    }
    const std::string requestId = frames.size() > 1 ? frames[1].to_string() : "";
    std::array<zmq::message_t, 6> reply{zmq::message_t(std::string_view("1.0")), zmq::message_t(requestId),
                                        zmq::message_t(std::string_view(accepted ? "200" : "400")),
                                        zmq::message_t(std::string_view(accepted ? "OK" : "not this job's key")),
                                        zmq::message_t(), zmq::message_t()};
    zmq::send_multipart(m_zap, reply);
}

void Server::countMonitorEvent()
{
    std::vector<zmq::message_t> frames;
    if (zmq::recv_multipart(m_monitor, std::back_inserter(frames), zmq::recv_flags::dontwait))
        ++m_refused; // only handshake failures are monitored
}

std::optional<Request> Server::wait(Milliseconds timeout, std::span<zmq::socket_t* const> others)
{
    const auto deadline = Clock::now() + timeout;
    std::vector<zmq::pollitem_t> items = {{m_router.handle(), 0, ZMQ_POLLIN, 0},
                                          {m_zap.handle(), 0, ZMQ_POLLIN, 0},
                                          {m_monitor.handle(), 0, ZMQ_POLLIN, 0}};
    for (zmq::socket_t* s : others)
        items.push_back({s->handle(), 0, ZMQ_POLLIN, 0});
    for (;;) {
        const auto left = std::chrono::duration_cast<Milliseconds>(deadline - Clock::now());
        zmq::poll(items, std::max(left, Milliseconds(0)));
        if (items[1].revents & ZMQ_POLLIN)
            answerAuthentication();
        if (items[2].revents & ZMQ_POLLIN)
            countMonitorEvent();
        if (items[0].revents & ZMQ_POLLIN) {
            std::vector<zmq::message_t> frames;
            if (zmq::recv_multipart(m_router, std::back_inserter(frames), zmq::recv_flags::dontwait)) {
                m_bytesIn += static_cast<int64_t>(frameBytes(frames));
                if (auto m = decodeMessage(frames, 1))
                    return Request{frames[0].to_string(), std::move(*m)};
                ++m_malformed;
            }
        }
        for (size_t i = 3; i < items.size(); ++i)
            if (items[i].revents & ZMQ_POLLIN)
                return std::nullopt;
        if (Clock::now() >= deadline)
            return std::nullopt;
    }
}

bool Server::send(const std::string& peer, Message message)
{
    auto frames = encode(message);
    const auto bytes = static_cast<int64_t>(frameBytes(frames));
    frames.insert(frames.begin(), zmq::message_t(peer));
    try {
        if (!zmq::send_multipart(m_router, frames, zmq::send_flags::dontwait))
            return false; // its queue is full
    } catch (const zmq::error_t&) {
        return false; // not connected (gone, or not yet there): ROUTER_MANDATORY says so
    }
    m_bytesOut += bytes;
    return true;
}

Client::Client(zmq::context_t& context, const CurveKeys& keys, const std::string& endpoint, std::string name,
               const std::string& identity, int64_t maxFrameBytes)
    : m_socket(context, zmq::socket_type::dealer), m_name(std::move(name))
{
    setCommonOptions(m_socket, maxFrameBytes);
    m_socket.set(zmq::sockopt::curve_serverkey, keys.serverPublic);
    m_socket.set(zmq::sockopt::curve_publickey, keys.clientPublic);
    m_socket.set(zmq::sockopt::curve_secretkey, keys.clientSecret);
    if (!identity.empty())
        m_socket.set(zmq::sockopt::routing_id, identity);
    m_socket.connect(endpoint);
}

void Client::send(Message message)
{
    auto frames = encode(message);
    m_bytesOut += static_cast<int64_t>(frameBytes(frames));
    zmq::send_multipart(m_socket, frames);
}

std::optional<Message> Client::receive(Milliseconds timeout)
{
    zmq::pollitem_t item{m_socket.handle(), 0, ZMQ_POLLIN, 0};
    // A deadline already past is a look, not ZeroMQ's "forever" (any negative timeout): a
    // heartbeat whose deadline passed between its check and this call waited for a reply its
    // killed coordinator never sent, and its worker hung on exit joining it.
    if (zmq::poll(&item, 1, std::max(timeout, Milliseconds(0))) == 0)
        return std::nullopt;
    std::vector<zmq::message_t> frames;
    if (!zmq::recv_multipart(m_socket, std::back_inserter(frames), zmq::recv_flags::dontwait))
        return std::nullopt;
    m_bytesIn += static_cast<int64_t>(frameBytes(frames));
    auto m = decodeMessage(frames, 0);
    if (!m)
        throw distribute::CollectiveError(m_name + " sent a message that does not parse");
    return m;
}

} // namespace strata::ps
