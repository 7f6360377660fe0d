#pragma once
// What one ps task holds: its shards of the model's variables, their optimizer slots and a
// version per shard (the updates it has applied). Pushed gradients are applied as they
// arrive, one push at a time (asynchronous training); a push reports, per shard, how many
// updates the shard received since the pushing worker pulled it (its staleness).
//
// Wire format (ps/transport.h messages; payload frames are float32 rows in shard order):
//   init  {shards: [names], iterations, versions: [...], slots: k}  + per shard: value, k slots
//   pull  -> {versions, generation}                                 + per shard: value
//   push  {versions, generation: as pulled} + per shard: gradient   -> {staleness: [...]}
// `generation` counts inits: a push computed before the variables were replaced (a relaunched
// coordinator restoring its checkpoint) is dropped, answered with `dropped`.
//   state -> {iterations, versions, slots: k}                       + per shard: value, k slots

#include "ps/job_layout.h"
#include "ps/transport.h"
#include "strata/nn/optimizer.h"

#include <memory>
#include <optional>

namespace strata::ps {

// Rows [begin, end) of `t` (a row-major tensor) as one contiguous span.
std::span<float> rowsOf(Tensor& t, int64_t begin, int64_t end);

class ShardStore {
public:
    ShardStore(const schema::Experiment& experiment, const JobLayout& layout, int psIndex);

    bool initialized() const { return m_initialized; }
    size_t shardCount() const { return m_params.size(); }
    int64_t variableBytes() const;
    int64_t updates() const { return m_updates; }

    // Each throws CollectiveError naming what does not match this task's layout.
    void init(const Message& request);
    Message pull() const;
    Message push(const Message& request);
    Message state();

private:
    std::vector<nn::Parameter> m_params; // one per shard
    std::vector<nn::Parameter*> m_list;
    std::vector<int64_t> m_versions;
    std::unique_ptr<nn::Optimizer> m_optimizer;
    int64_t m_updates = 0;
    int64_t m_generation = 0;
    bool m_initialized = false;
};

// A ps task's answer to one request (the loop of training/parameter_server.cpp).
struct Served {
    Message reply;                       // to send back; carries the request's id
    bool fromCoordinator = false;        // init, state, ping, shutdown: the coordinator is alive
    bool pulled = false;                 // a pull was answered
    std::optional<std::string> shutdown; // the job's status, when the coordinator ends it
};
// Requests the store cannot answer (not initialized, not this layout's, unknown, malformed)
// get a reply with an "error" naming why.
Served serve(ShardStore& store, const Message& request);

} // namespace strata::ps
