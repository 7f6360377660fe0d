#include "strata/distribute/rendezvous_frames.h"

#include "strata/distribute/communicator.h"

namespace strata::distribute {

namespace {

void putU32(std::string& out, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t getU32(const char* p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
        v |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    return v;
}

} // namespace

std::optional<uint32_t> rendezvousFrameLength(const char header[4])
{
    const uint32_t length = getU32(header);
    if (length > kMaxRendezvousFrame)
        return std::nullopt;
    return length;
}

std::string rendezvousFrame(std::string_view payload)
{
    std::string out;
    out.reserve(4 + payload.size());
    putU32(out, static_cast<uint32_t>(payload.size()));
    out += payload;
    return out;
}

std::string encodeRendezvousRequest(const std::string& token, char op, const std::vector<std::string>& args)
{
    std::string p;
    p.push_back(static_cast<char>(token.size() & 0xff));
    p.push_back(static_cast<char>((token.size() >> 8) & 0xff));
    p += token;
    p.push_back(op);
    for (const auto& a : args) {
        putU32(p, static_cast<uint32_t>(a.size()));
        p += a;
    }
    return rendezvousFrame(p);
}

std::optional<RendezvousRequest> parseRendezvousRequest(std::string_view frame)
{
    if (frame.size() < 2)
        return std::nullopt;
    const size_t tokenLength = static_cast<unsigned char>(frame[0]) | (static_cast<unsigned char>(frame[1]) << 8);
    size_t at = 2;
    if (frame.size() < at + tokenLength + 1)
        return std::nullopt;
    RendezvousRequest r;
    r.token = frame.substr(at, tokenLength);
    at += tokenLength;
    r.op = frame[at++];
    while (at < frame.size()) {
        if (frame.size() - at < 4)
            return std::nullopt;
        const uint32_t n = getU32(frame.data() + at);
        at += 4;
        if (frame.size() - at < n)
            return std::nullopt;
        r.args.emplace_back(frame.substr(at, n));
        at += n;
    }
    return r;
}

std::optional<std::string> readRendezvousValue(std::string_view answer)
{
    if (answer == "0")
        return std::nullopt;
    if (answer.empty() || answer.front() != '1')
        throw CollectiveError("the rendezvous answered a get with " + std::to_string(answer.size()) +
                              " bytes that are neither a value nor \"not set\"");
    return std::string(answer.substr(1));
}

std::vector<std::string> readRendezvousLostTasks(std::string_view answer)
{
    std::vector<std::string> out;
    while (!answer.empty()) {
        const size_t end = answer.find('\n');
        out.emplace_back(answer.substr(0, end));
        answer.remove_prefix(end == std::string_view::npos ? answer.size() : end + 1);
    }
    return out;
}

} // namespace strata::distribute
