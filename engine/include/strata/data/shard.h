#pragma once
// Input sharding among the workers of one synchronous job, with tf.distribute's semantics
// (tf.data.experimental.AutoShardPolicy and the rebatching of experimental_distribute_dataset).
// The input is read in global batches; at every step each worker trains on its piece and the
// pieces of all workers together are that step's global batch.
//
//   OFF   every worker reads the whole data (the same seeded order on every worker) and cuts
//         it into per-worker pieces: workers train on the same examples.
//   FILE  worker w reads only the files f with f % W == w (before shuffling), shuffles them
//         and cuts them into per-worker pieces. Fewer files than workers is an error.
//   DATA  every worker reads everything in the same seeded order and keeps its piece of each
//         global batch (splitRows over the workers), so the W pieces are the global batch.
//   AUTO  FILE when the input has at least W files, else DATA.
// One worker reads everything whatever the policy.
//
// A plan is pure: every worker builds the same plans of every worker from the same inputs,
// so its stream depends only on (seed, epoch, policy, W, w) and each worker knows every
// step's global batch size without asking the others.

#include "strata/data/dataset.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace strata::data {

enum class ShardPolicy { Auto, Off, File, Data };

// data.shard_policy's names: "AUTO", "OFF", "FILE", "DATA". Another name is a ConfigError at
// data.shard_policy.
ShardPolicy shardPolicyFromName(const std::string& name);
std::string shardPolicyName(ShardPolicy policy);

// Which part of the input a pipeline reads: that of worker `workerIndex` of `workers` (the
// sync group's chief is worker 0, the workers follow).
struct ShardSpec {
    ShardPolicy policy = ShardPolicy::Auto;
    int workers = 1;
    int workerIndex = 0;
};

// Rows [first, second) of a batch of `rows` for each of `parts`, in order, sizes differing by
// at most one: how a global batch is divided among workers, and a batch among replicas
// (tf.distribute's rebatching).
std::vector<std::pair<int64_t, int64_t>> splitRows(int64_t rows, int parts);

// What one step of a pass reads: rows [begin, end) of the worker's shuffled stream (empty
// when its shard is exhausted before the others'), and the size of the step's global batch,
// every worker's rows together (the mean loss's denominator, never 0).
struct StepRows {
    int64_t begin = 0;
    int64_t end = 0;
    int64_t globalSize = 0;
    int64_t size() const { return end - begin; }
};

class ShardPlan {
public:
    // Plans how worker spec.workerIndex reads `examples` (indices into `dataset`, in their
    // natural order) in global batches of `globalBatch`; `dropRemainder` drops each stream's
    // last partial global batch. Throws ConfigError (data.shard_policy) for FILE with fewer
    // files than workers, Error for an invalid spec or a global batch smaller than the workers.
    ShardPlan(const ShardSpec& spec, const Dataset& dataset, std::vector<int64_t> examples, int64_t globalBatch,
              bool dropRemainder);

    // The policy applied: OFF, FILE or DATA (AUTO resolved; one worker: OFF).
    ShardPolicy policy() const { return m_policy; }
    // This worker's examples in their natural order: what every pass shuffles.
    const std::vector<int64_t>& stream() const { return m_stream; }
    // Steps in a pass, the same on every worker: while one worker's stream lasts, the others
    // take part with empty pieces (tf.distribute's partial batch handling).
    int64_t stepsPerEpoch() const { return m_steps; }
    // Examples this worker trains on per pass.
    int64_t examplesPerEpoch() const { return m_examples; }
    // Step `step` (0 <= step < stepsPerEpoch()) of a pass.
    StepRows rows(int64_t step) const;

private:
    std::pair<int64_t, int64_t> piece(int worker, int64_t step) const;
    int64_t stepsOf(int worker) const;

    ShardPolicy m_policy = ShardPolicy::Off;
    int m_workers = 1;
    int m_worker = 0;
    int64_t m_globalBatch = 1;
    bool m_dropRemainder = false;
    std::vector<int64_t> m_stream;
    std::vector<int64_t> m_streamSizes; // every worker's stream, per pass
    std::vector<int64_t> m_pieceSizes;  // splitRows(globalBatch, workers)
    int64_t m_steps = 0;
    int64_t m_examples = 0;
};

} // namespace strata::data
