#pragma once
// Input pipeline: shard -> shuffle (seeded, reshuffled every epoch) -> batch -> repeat ->
// prefetch (background thread), like tf.data, yielding this worker's piece of every global
// batch (data/shard.h). The order of epoch e depends only on (seed, e) and the worker's place
// (policy, workers, worker index), so seek() puts a resumed run exactly where the
// interrupted one was.

#include "strata/data/dataset.h"
#include "strata/data/shard.h"
#include "strata/tensor/tensor.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace strata::data {

struct PipelineOptions {
    int64_t batchSize = 32; // the global batch, over every worker
    bool dropRemainder = false;
    bool shuffle = true;
    uint64_t seed = 0;
    // An explicit shard applied before `shard` below: keep every shardCount-th example ...
    int64_t shardCount = 1;
    int64_t shardIndex = 0; // ... starting at this one (tf.data's shard(num, index))
    int64_t prefetch = 2;   // batches prepared ahead on a background thread (0: none)
    // The worker whose piece of each global batch this pipeline yields (multi-worker
    // training); one worker reads all of it.
    ShardSpec shard;
};

struct Batch {
    Tensor x;           // (size, feature shape...)
    Tensor y;           // (size, label shape...)
    int64_t epoch = 0;  // pass over the data this batch belongs to
    int64_t index = 0;  // batch index within that pass
    // Examples of the step's global batch, every worker's together (size() with one worker).
    int64_t globalSize = 0;
    int64_t size() const { return x.rank() == 0 ? 0 : x.dim(0); }
};

// Reads from one thread (the consumer); the prefetch thread is internal.
class Pipeline {
public:
    // `indices`: which examples of `dataset` this pipeline reads, in their natural order
    // (e.g. the training part of a validation split). Throws ConfigError for a shard policy
    // the data cannot follow (FILE with fewer files than workers).
    Pipeline(std::shared_ptr<const Dataset> dataset, std::vector<int64_t> indices, PipelineOptions options);
    ~Pipeline();
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;

    // The shard policy applied (AUTO resolved; one worker: OFF).
    ShardPolicy shardPolicy() const { return m_plan.policy(); }
    // Examples this worker trains on per pass, and batches (steps) per pass: the same on
    // every worker; a worker whose shard runs out first yields empty batches meanwhile.
    int64_t examplesPerEpoch() const { return m_plan.examplesPerEpoch(); }
    int64_t batchesPerEpoch() const { return m_plan.stepsPerEpoch(); }

    // Positions the stream so that next() returns batch `batch` (counted over all passes,
    // from 0).
    void seek(int64_t batch);
    // The next batch; passes follow each other without end (repeat).
    Batch next();

private:
    Batch make(int64_t globalBatch);
    void startProducer(int64_t fromBatch);
    void stopProducer();
    void produce(int64_t fromBatch);
    const std::vector<int64_t>& order(int64_t epoch);

    std::shared_ptr<const Dataset> m_dataset;
    PipelineOptions m_options;
    ShardPlan m_plan;
    int64_t m_nextBatch = 0;

    // Permutation of the epoch last asked for (built once per epoch).
    int64_t m_orderEpoch = -1;
    std::vector<int64_t> m_order;

    std::thread m_producer;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<Batch> m_queue;
    bool m_stop = false;
    std::exception_ptr m_error;
};

} // namespace strata::data
