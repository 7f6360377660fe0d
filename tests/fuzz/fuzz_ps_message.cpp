// ParameterServer messages (engine/ps: a JSON header frame and float payload frames), as the
// tasks read them off their ZeroMQ sockets: decoded from frames, served by a ps task's
// ShardStore (init, pull, push, state, ping, shutdown, in the order they come), and read as
// the coordinator reads a worker's messages, a worker the coordinator's, and a worker a ps
// task's replies. The store holds a tiny model's shards (Dense 4->3->2, Adam, 2 shards of
// the first kernel) on one ps task.
//
// Input: messages one after another, each a frame count byte, then each frame as a 2-byte
// little-endian length and its bytes (make_seeds.py writes them).

#include "fuzz_support.h"

#include "ps/messages.h"
#include "ps/shard_store.h"
#include "strata/distribute/communicator.h"

using namespace strata;

namespace {

const char* const kExperiment = R"({
  "strategy": {"type": "ParameterServer", "partitioner": {"type": "FixedShards", "num_shards": 2}},
  "cluster": {"nodes": [{"name": "local", "host": "localhost"}],
              "tasks": [{"type": "chief", "node": "local", "port": 1},
                        {"type": "worker", "node": "local", "port": 2},
                        {"type": "ps", "node": "local", "port": 3}]},
  "model": {"input_shape": [4], "layers": [{"type": "Dense", "units": 3, "activation": "relu"},
                                           {"type": "Dense", "units": 2}]},
  "data": {"source": {"type": "synthetic", "task": "classification", "features": 4, "classes": 2}},
  "training": {"optimizer": {"type": "adam"}}
})";

struct Job {
    schema::Experiment experiment = schema::parseExperiment(schema::parseJsonText(kExperiment, "ps-job"), "/");
    nn::Sequential model{experiment.model, experiment.seed};
    ps::JobLayout layout = ps::JobLayout::of(experiment, model);
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const Job job;
    ps::ShardStore store(job.experiment, job.layout, 0);
    std::string_view input = fuzz::text(data, size);
    while (!input.empty()) {
        const size_t count = static_cast<unsigned char>(input[0]);
        input.remove_prefix(1);
        std::vector<zmq::message_t> frames;
        for (size_t i = 0; i < count && input.size() >= 2; ++i) {
            const size_t length = std::min<size_t>(static_cast<unsigned char>(input[0]) |
                                                       (static_cast<unsigned char>(input[1]) << 8),
                                                   input.size() - 2);
            frames.emplace_back(input.data() + 2, length);
            input.remove_prefix(2 + length);
        }
        std::optional<ps::Message> message = ps::decodeMessage(frames, 0);
        if (!message)
            continue;
        const ps::Json& header = message->header;
        fuzz::answers([&] { (void)ps::readStepOrder(header); });
        fuzz::answers([&] { (void)ps::readWorkerMessage(header); });
        fuzz::answers([&] { (void)ps::readStepResult(header); });
        fuzz::answers([&] { (void)ps::readPsReply(header); });
        fuzz::answers([&] { (void)ps::readIntegers(header, "versions", store.shardCount()); });
        fuzz::answers([&] { (void)ps::readInteger(header, "iterations"); });
        const ps::Served served = ps::serve(store, *message);
        if (served.shutdown)
            break;
    }
    return 0;
}
