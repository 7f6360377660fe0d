// The rendezvous' frames (distribute/rendezvous_frames.h), as a server reads requests and a client
// reads answers from a connection: the input is the byte stream, cut into frames by their
// headers as the socket reader does. Each frame is read as a request (a request that parses
// must encode back to the same frame) and as a client reads each kind of answer.

#include "fuzz_support.h"

#include "strata/distribute/communicator.h"
#include "strata/distribute/rendezvous_frames.h"

using namespace strata;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string_view stream = fuzz::text(data, size);
    while (stream.size() >= 4) {
        const std::optional<uint32_t> length = distribute::rendezvousFrameLength(stream.data());
        if (!length || stream.size() - 4 < *length)
            break; // the connection is dropped, or the peer has not sent the rest
        const std::string_view frame = stream.substr(0, 4 + *length);
        const std::string_view payload = frame.substr(4);
        stream.remove_prefix(frame.size());

        if (const auto request = distribute::parseRendezvousRequest(payload)) {
            if (distribute::encodeRendezvousRequest(request->token, request->op, request->args) != frame)
                fuzz::fail("a request does not encode back to its frame");
            if (distribute::parseRendezvousRequest(distribute::rendezvousFrame(payload).substr(4)) != request)
                fuzz::fail("a request reads differently from a copy of its frame");
        }
        fuzz::answers([&] {
            if (const auto value = distribute::readRendezvousValue(payload); value && value->size() + 1 != payload.size())
                fuzz::fail("a get's answer of " + std::to_string(payload.size()) + " bytes gave a value of " +
                           std::to_string(value->size()));
        });
        size_t lineBytes = 0;
        for (const std::string& line : distribute::readRendezvousLostTasks(payload))
            lineBytes += line.size() + 1;
        if (lineBytes < payload.size() || lineBytes > payload.size() + 1)
            fuzz::fail("the lost tasks' lines do not add up to their answer");
    }
    return 0;
}
