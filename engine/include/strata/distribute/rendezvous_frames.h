#pragma once
// The rendezvous' wire format (rendezvous.h), apart from its sockets: what a frame is, how a
// request is laid out, and the forms of the answers a client reads. Every byte here comes
// from the network, so every length is checked against what is there before it is used.
//
// Frame: uint32 length (little-endian) of the rest, then the rest. A request's rest: uint16
// token length, token, one operation byte, then the operation's strings (uint32 length +
// bytes each). Answers: "ok"; a get's "1" + value or "0" (not set); the lost tasks' lines,
// each ending in '\n'.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::distribute {

// The most a frame may hold (Gloo's addresses are a few hundred bytes per rank).
constexpr uint32_t kMaxRendezvousFrame = 1u << 20;

struct RendezvousRequest {
    std::string token;
    char op = 0;
    std::vector<std::string> args;

    bool operator==(const RendezvousRequest&) const = default;
};

// The 4-byte header of a frame: the length of the rest, or nothing when it is beyond
// kMaxRendezvousFrame (the connection is then dropped).
std::optional<uint32_t> rendezvousFrameLength(const char header[4]);
// `payload` with its header.
std::string rendezvousFrame(std::string_view payload);

// A request as a whole frame.
std::string encodeRendezvousRequest(const std::string& token, char op, const std::vector<std::string>& args);
// A request from a frame's rest; nothing when it is malformed (a length beyond the frame).
std::optional<RendezvousRequest> parseRendezvousRequest(std::string_view payload);

// A get's answer: the value, or nothing when the key is not set. CollectiveError when the
// answer is neither form.
std::optional<std::string> readRendezvousValue(std::string_view answer);
// The lost tasks' answer, one task per line.
std::vector<std::string> readRendezvousLostTasks(std::string_view answer);

} // namespace strata::distribute
