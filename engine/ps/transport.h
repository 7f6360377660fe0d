#pragma once
// ZeroMQ sockets of a ParameterServer job, secured with the job's CURVE keys.
//
// A message is a JSON header frame (the operation and its small fields) followed by raw
// payload frames (tensor bytes). Servers (ps tasks, the coordinator) bind a ROUTER to their
// cluster address; clients connect DEALERs. A server authenticates every client through a
// ZAP handler (the client key pair derived from the token) and counts what it refuses: failed
// handshakes (a peer without the token, a peer sending garbage) and messages that do not
// parse. All of a Server's sockets are used from the one thread that calls wait().

#include "ps/curve_keys.h"

#include <nlohmann/json.hpp>
#include <zmq.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace strata::ps {

using Json = nlohmann::json;
using Milliseconds = std::chrono::milliseconds;

// The most a message's frame may declare by default (headers, and messages without tensors):
// ZeroMQ drops a peer whose frame declares more as soon as it reads the frame's size, before
// allocating for it (ZMQ_MAXMSGSIZE; otherwise any peer, authenticated or not, could make it
// allocate whatever it declares). Sockets that carry shards allow their largest shard.
constexpr int64_t kMaxHeaderFrameBytes = int64_t(16) << 20;

struct Message {
    Json header;
    std::vector<zmq::message_t> payload;

    // A payload frame holding a copy of `values`.
    void add(std::span<const float> values);
    // A payload frame over `values` themselves (no copy): they must stay unchanged until the
    // message has left, e.g. until its reply has come.
    void addView(std::span<const float> values);
    size_t bytes() const; // payload bytes
};

// Copies `frame` into `into`; CollectiveError naming `what` when the sizes differ.
void copyFrame(const zmq::message_t& frame, std::span<float> into, const std::string& what);

// A message from received frames (after any routing ids: `first` is the header's frame):
// nothing when there is no header frame or it is not a JSON object. The payload frames are
// moved out of `frames`.
std::optional<Message> decodeMessage(std::vector<zmq::message_t>& frames, size_t first);

struct Request {
    std::string peer; // the client's routing id
    Message message;
};

// "tcp://host:port" for a task's cluster address ("localhost" is 127.0.0.1).
std::string endpointOf(const std::string& host, int64_t port);

class Server {
public:
    // Binds `endpoint` (the task's own cluster address). Throws CollectiveError naming the
    // address when it cannot. A peer sending a frame beyond `maxFrameBytes` is dropped.
    Server(zmq::context_t& context, const CurveKeys& keys, const std::string& endpoint,
           int64_t maxFrameBytes = kMaxHeaderFrameBytes);
    ~Server();

    // Waits up to `timeout` for a request or for one of `others` to become readable, answering
    // authentication requests and counting refusals meanwhile. Returns a request when one came.
    std::optional<Request> wait(Milliseconds timeout, std::span<zmq::socket_t* const> others = {});
    // False when `peer` is not connected (it left, or has not connected yet) or its queue is
    // full: the message was not sent.
    bool send(const std::string& peer, Message message);

    // Handshakes refused (wrong keys, garbage) and messages that did not parse.
    int64_t refused() const { return m_refused; }
    int64_t malformed() const { return m_malformed; }
    // Bytes of the messages received and sent.
    int64_t bytesIn() const { return m_bytesIn; }
    int64_t bytesOut() const { return m_bytesOut; }
    const std::string& endpoint() const { return m_endpoint; }

private:
    void answerAuthentication();
    void countMonitorEvent();

    const CurveKeys& m_keys;
    std::string m_endpoint;
    zmq::socket_t m_router, m_zap, m_monitor;
    int64_t m_refused = 0, m_malformed = 0, m_bytesIn = 0, m_bytesOut = 0;
};

class Client {
public:
    // Connects to `endpoint` (connection happens in the background; a server that is not up
    // yet is retried). `name` is what errors call the server ("ps:1"). `identity` is this
    // client's routing id (empty: ZeroMQ's). A server sending a frame beyond `maxFrameBytes`
    // is disconnected (and reconnected).
    Client(zmq::context_t& context, const CurveKeys& keys, const std::string& endpoint, std::string name,
           const std::string& identity = {}, int64_t maxFrameBytes = kMaxHeaderFrameBytes);

    void send(Message message);
    // The next message, if one arrives within `timeout`. A reply that does not parse throws
    // CollectiveError naming the server.
    std::optional<Message> receive(Milliseconds timeout);
    zmq::socket_t& socket() { return m_socket; }
    const std::string& name() const { return m_name; }
    int64_t bytesIn() const { return m_bytesIn; }
    int64_t bytesOut() const { return m_bytesOut; }

private:
    zmq::socket_t m_socket;
    std::string m_name;
    int64_t m_bytesIn = 0, m_bytesOut = 0;
};

} // namespace strata::ps
