#include "strata/data/pipeline.h"

#include "strata/core/error.h"
#include "strata/core/rng.h"

#include <algorithm>

namespace strata::data {

namespace {

// Checks the options and the indices and applies the explicit shard (shardCount,
// shardIndex): the examples the shard plan divides among the workers.
std::vector<int64_t> readable(const std::shared_ptr<const Dataset>& dataset, const std::vector<int64_t>& indices,
                              const PipelineOptions& options)
{
    STRATA_CHECK(dataset != nullptr, "pipeline without a dataset");
    if (options.batchSize < 1)
        throw Error("batch size must be at least 1, got " + std::to_string(options.batchSize));
    if (options.shardCount < 1 || options.shardIndex < 0 || options.shardIndex >= options.shardCount)
        throw Error("shard index " + std::to_string(options.shardIndex) + " is outside 0.."
                    + std::to_string(options.shardCount - 1) + " (" + std::to_string(options.shardCount)
                    + " shards)");
    if (options.prefetch < 0)
        throw Error("prefetch must not be negative, got " + std::to_string(options.prefetch));
    for (int64_t index : indices)
        STRATA_CHECK(index >= 0 && index < dataset->size(),
                     "example " + std::to_string(index) + " of " + std::to_string(dataset->size()));

    // Shard before shuffling, as tf.data recommends: each shard keeps a fixed part of the data.
    std::vector<int64_t> kept;
    for (size_t p = 0; p < indices.size(); ++p)
        if (static_cast<int64_t>(p) % options.shardCount == options.shardIndex)
            kept.push_back(indices[p]);
    if (kept.empty())
        throw Error("nothing to read: 0 examples"
                    + (options.shardCount > 1 ? " in shard " + std::to_string(options.shardIndex) + " of "
                                                    + std::to_string(options.shardCount)
                                              : std::string())
                    + " of " + dataset->description());
    return kept;
}

} // namespace

Pipeline::Pipeline(std::shared_ptr<const Dataset> dataset, std::vector<int64_t> indices, PipelineOptions options)
    : m_dataset(std::move(dataset)), m_options(options),
      m_plan(m_options.shard, *m_dataset, readable(m_dataset, indices, m_options), m_options.batchSize,
             m_options.dropRemainder)
{
    if (m_plan.stepsPerEpoch() == 0) {
        const ShardSpec& shard = m_options.shard;
        throw Error("batch size " + std::to_string(m_options.batchSize) + " with drop_remainder leaves no batch: only "
                    + std::to_string(m_plan.stream().size()) + " examples"
                    + (shard.workers > 1 ? " for worker " + std::to_string(shard.workerIndex) + " of "
                                               + std::to_string(shard.workers) + " ("
                                               + shardPolicyName(m_plan.policy()) + " sharding)"
                                         : std::string())
                    + " of " + m_dataset->description());
    }
}

Pipeline::~Pipeline() { stopProducer(); }

void Pipeline::seek(int64_t batch)
{
    if (batch < 0)
        throw Error("cannot seek to batch " + std::to_string(batch));
    stopProducer();
    m_nextBatch = batch;
}

Batch Pipeline::next()
{
    if (m_options.prefetch == 0)
        return make(m_nextBatch++);

    // Started on first use, so a seek() right after construction wastes no work.
    if (!m_producer.joinable())
        startProducer(m_nextBatch);
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [this] { return !m_queue.empty() || m_error; });
    // Batches made before a failure are still good: hand them out first.
    if (m_queue.empty())
        std::rethrow_exception(m_error);
    Batch batch = std::move(m_queue.front());
    m_queue.pop_front();
    ++m_nextBatch;
    lock.unlock();
    m_changed.notify_all();
    return batch;
}

Batch Pipeline::make(int64_t globalBatch)
{
    const int64_t perEpoch = batchesPerEpoch();
    Batch batch;
    batch.epoch = globalBatch / perEpoch;
    batch.index = globalBatch % perEpoch;
    const StepRows rows = m_plan.rows(batch.index);
    batch.globalSize = rows.globalSize;
    batch.x = Tensor(m_dataset->featureShape().withBatch(rows.size()));
    batch.y = Tensor(m_dataset->labelShape().withBatch(rows.size()));
    // An empty piece (this worker's shard ran out before the others') still is a step.
    if (rows.size() > 0) {
        const std::vector<int64_t>& examples = order(batch.epoch);
        m_dataset->gather(std::span<const int64_t>(examples.data() + rows.begin, static_cast<size_t>(rows.size())),
                          batch.x.data(), batch.y.data());
    }
    return batch;
}

const std::vector<int64_t>& Pipeline::order(int64_t epoch)
{
    if (epoch == m_orderEpoch)
        return m_order;
    m_order = m_plan.stream();
    if (m_options.shuffle && m_order.size() > 1) {
        // Fisher-Yates from a generator that depends only on (seed, epoch): any epoch's order
        // can be rebuilt without replaying the ones before it.
        Rng rng(m_options.seed, static_cast<uint64_t>(epoch));
        for (size_t i = m_order.size() - 1; i > 0; --i)
            std::swap(m_order[i], m_order[rng.below(i + 1)]);
    }
    m_orderEpoch = epoch;
    return m_order;
}

void Pipeline::startProducer(int64_t fromBatch)
{
    m_stop = false;
    m_error = nullptr;
    m_producer = std::thread([this, fromBatch] { produce(fromBatch); });
}

void Pipeline::stopProducer()
{
    if (!m_producer.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    // Wakes a producer waiting for room in a full queue, so join() cannot hang.
    m_changed.notify_all();
    m_producer.join();
    m_queue.clear();
    m_stop = false;
    m_error = nullptr;
}

void Pipeline::produce(int64_t fromBatch)
{
    try {
        for (int64_t g = fromBatch;; ++g) {
            {
                std::lock_guard lock(m_mutex);
                if (m_stop)
                    return;
            }
            // Built outside the lock: the consumer keeps taking ready batches meanwhile.
            Batch batch = make(g);
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [this] {
                return m_stop || static_cast<int64_t>(m_queue.size()) < m_options.prefetch;
            });
            if (m_stop)
                return;
            m_queue.push_back(std::move(batch));
            lock.unlock();
            m_changed.notify_all();
        }
    } catch (...) {
        {
            std::lock_guard lock(m_mutex);
            m_error = std::current_exception();
        }
        m_changed.notify_all();
    }
}

} // namespace strata::data
