#include "strata/data/pipeline.h"

#include "strata/core/error.h"
#include "strata/core/rng.h"

#include <algorithm>

namespace strata::data {

Pipeline::Pipeline(std::shared_ptr<const Dataset> dataset, std::vector<int64_t> indices, PipelineOptions options)
    : m_dataset(std::move(dataset)), m_options(options)
{
    STRATA_CHECK(m_dataset != nullptr, "pipeline without a dataset");
    if (m_options.batchSize < 1)
        throw Error("batch size must be at least 1, got " + std::to_string(m_options.batchSize));
    if (m_options.shardCount < 1 || m_options.shardIndex < 0 || m_options.shardIndex >= m_options.shardCount)
        throw Error("shard index " + std::to_string(m_options.shardIndex) + " is outside 0.."
                    + std::to_string(m_options.shardCount - 1) + " (" + std::to_string(m_options.shardCount)
                    + " shards)");
    if (m_options.prefetch < 0)
        throw Error("prefetch must not be negative, got " + std::to_string(m_options.prefetch));
    for (int64_t index : indices)
        STRATA_CHECK(index >= 0 && index < m_dataset->size(),
                     "example " + std::to_string(index) + " of " + std::to_string(m_dataset->size()));

    // Shard before shuffling, as tf.data recommends: each worker keeps a fixed part of the data.
    for (size_t p = 0; p < indices.size(); ++p)
        if (static_cast<int64_t>(p) % m_options.shardCount == m_options.shardIndex)
            m_indices.push_back(indices[p]);

    const std::string what = std::to_string(m_indices.size()) + " examples"
                             + (m_options.shardCount > 1 ? " in shard " + std::to_string(m_options.shardIndex)
                                                               + " of " + std::to_string(m_options.shardCount)
                                                         : std::string())
                             + " of " + m_dataset->description();
    if (m_indices.empty())
        throw Error("nothing to read: 0 " + what);
    if (m_options.dropRemainder && examplesPerEpoch() < m_options.batchSize)
        throw Error("batch size " + std::to_string(m_options.batchSize) + " with drop_remainder leaves no batch: only "
                    + what);
}

Pipeline::~Pipeline() { stopProducer(); }

int64_t Pipeline::examplesPerEpoch() const { return static_cast<int64_t>(m_indices.size()); }

int64_t Pipeline::batchesPerEpoch() const
{
    const int64_t n = examplesPerEpoch();
    const int64_t size = m_options.batchSize;
    return m_options.dropRemainder ? n / size : (n + size - 1) / size;
}

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
    const std::vector<int64_t>& examples = order(batch.epoch);
    const int64_t first = batch.index * m_options.batchSize;
    const int64_t size = std::min(m_options.batchSize, examplesPerEpoch() - first);
    batch.x = Tensor(m_dataset->featureShape().withBatch(size));
    batch.y = Tensor(m_dataset->labelShape().withBatch(size));
    m_dataset->gather(std::span<const int64_t>(examples.data() + first, static_cast<size_t>(size)), batch.x.data(),
                      batch.y.data());
    return batch;
}

const std::vector<int64_t>& Pipeline::order(int64_t epoch)
{
    if (epoch == m_orderEpoch)
        return m_order;
    m_order = m_indices;
    if (m_options.shuffle) {
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
