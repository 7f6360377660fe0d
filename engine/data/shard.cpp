#include "strata/data/shard.h"

#include "strata/core/error.h"

#include <algorithm>

namespace strata::data {

namespace {

// The file each of `examples` was read from, numbered 0.. in file order among the files of
// these examples (a limit or a validation split may leave files out): tf.data shards the
// files a source actually reads. Empty when the data was not read from files.
std::vector<int64_t> fileNumbers(const Dataset& dataset, const std::vector<int64_t>& examples)
{
    if (dataset.fileCount() == 0)
        return {};
    std::vector<int64_t> files;
    files.reserve(examples.size());
    for (int64_t e : examples)
        files.push_back(dataset.fileOf(e));
    std::vector<int64_t> distinct = files;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    for (int64_t& f : files)
        f = std::lower_bound(distinct.begin(), distinct.end(), f) - distinct.begin();
    return files;
}

std::string plural(int64_t n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

} // namespace

ShardPolicy shardPolicyFromName(const std::string& name)
{
    for (ShardPolicy p : {ShardPolicy::Auto, ShardPolicy::Off, ShardPolicy::File, ShardPolicy::Data})
        if (shardPolicyName(p) == name)
            return p;
    throw ConfigError("data.shard_policy", "unknown policy \"" + name + "\" (AUTO, OFF, FILE or DATA)");
}

std::string shardPolicyName(ShardPolicy policy)
{
    switch (policy) {
    case ShardPolicy::Auto: return "AUTO";
    case ShardPolicy::Off: return "OFF";
    case ShardPolicy::File: return "FILE";
    case ShardPolicy::Data: return "DATA";
    }
    return "?";
}

std::vector<std::pair<int64_t, int64_t>> splitRows(int64_t rows, int parts)
{
    std::vector<std::pair<int64_t, int64_t>> out;
    for (int p = 0; p < parts; ++p)
        out.emplace_back(rows * p / parts, rows * (p + 1) / parts);
    return out;
}

ShardPlan::ShardPlan(const ShardSpec& spec, const Dataset& dataset, std::vector<int64_t> examples, int64_t globalBatch,
                     bool dropRemainder)
    : m_workers(spec.workers), m_worker(spec.workerIndex), m_globalBatch(globalBatch), m_dropRemainder(dropRemainder)
{
    if (m_workers < 1 || m_worker < 0 || m_worker >= m_workers)
        throw Error("worker index " + std::to_string(m_worker) + " is outside 0.." + std::to_string(m_workers - 1)
                    + " (" + plural(m_workers, "worker") + ")");
    if (m_globalBatch < 1)
        throw Error("batch size must be at least 1, got " + std::to_string(m_globalBatch));
    // Every worker's piece of a full global batch then holds an example, so every step's
    // global batch does too (no step where nobody trains).
    if (m_globalBatch < m_workers)
        throw Error("a global batch of " + plural(m_globalBatch, "example") + " cannot be divided among "
                    + plural(m_workers, "worker"));

    // One worker is not sharded (tf.distribute auto-shards only across several workers).
    std::vector<int64_t> files;
    if (m_workers == 1) {
        m_policy = ShardPolicy::Off;
    } else if (spec.policy == ShardPolicy::Auto || spec.policy == ShardPolicy::File) {
        files = fileNumbers(dataset, examples);
        const int64_t fileCount = files.empty() ? 0 : *std::max_element(files.begin(), files.end()) + 1;
        if (spec.policy == ShardPolicy::File && fileCount < m_workers)
            throw ConfigError("data.shard_policy",
                              "FILE needs at least as many files as workers: " + dataset.description() + " gives "
                                  + plural(fileCount, "file") + " for " + plural(m_workers, "worker")
                                  + " (use AUTO or DATA)");
        m_policy = fileCount >= m_workers ? ShardPolicy::File : ShardPolicy::Data;
    } else {
        m_policy = spec.policy;
    }

    m_pieceSizes.resize(static_cast<size_t>(m_workers));
    const auto pieces = splitRows(m_globalBatch, m_workers);
    for (size_t w = 0; w < pieces.size(); ++w)
        m_pieceSizes[w] = pieces[w].second - pieces[w].first;

    if (m_policy == ShardPolicy::File) {
        // Sharded before shuffling: each worker keeps its files' examples in their order.
        m_streamSizes.assign(static_cast<size_t>(m_workers), 0);
        for (size_t i = 0; i < examples.size(); ++i) {
            const auto owner = static_cast<size_t>(files[i] % m_workers);
            ++m_streamSizes[owner];
            if (owner == static_cast<size_t>(m_worker))
                m_stream.push_back(examples[i]);
        }
    } else {
        m_stream = std::move(examples);
        m_streamSizes.assign(static_cast<size_t>(m_workers), static_cast<int64_t>(m_stream.size()));
    }

    if (m_policy == ShardPolicy::Data) {
        const int64_t n = static_cast<int64_t>(m_stream.size());
        m_steps = m_dropRemainder ? n / m_globalBatch : (n + m_globalBatch - 1) / m_globalBatch;
    } else {
        for (int w = 0; w < m_workers; ++w)
            m_steps = std::max(m_steps, stepsOf(w));
    }
    for (int64_t s = 0; s < m_steps; ++s)
        m_examples += rows(s).size();
}

StepRows ShardPlan::rows(int64_t step) const
{
    STRATA_CHECK(step >= 0 && step < m_steps, "step " + std::to_string(step) + " of " + std::to_string(m_steps));
    StepRows r;
    if (m_policy == ShardPolicy::Data) {
        // Every worker reads the same global batch and keeps its piece of it.
        const int64_t first = step * m_globalBatch;
        r.globalSize = std::min(m_globalBatch, static_cast<int64_t>(m_stream.size()) - first);
        const auto piece = splitRows(r.globalSize, m_workers)[static_cast<size_t>(m_worker)];
        r.begin = first + piece.first;
        r.end = first + piece.second;
        return r;
    }
    for (int w = 0; w < m_workers; ++w) {
        const auto [begin, end] = piece(w, step);
        r.globalSize += end - begin;
        if (w == m_worker) {
            r.begin = begin;
            r.end = end;
        }
    }
    return r;
}

// OFF and FILE, as tf.distribute rebatches a worker's own stream: its global batch j is cut
// into W consecutive pieces of the splitRows sizes, rotated to start at the worker's own
// (tf.data's batch_sizes_for_worker), and step k takes piece k % W of batch k / W. At every
// step the W workers' pieces then have the W different sizes: one global batch in all.
std::pair<int64_t, int64_t> ShardPlan::piece(int worker, int64_t step) const
{
    const int64_t batchStart = (step / m_workers) * m_globalBatch;
    int64_t batchRows = std::clamp(m_streamSizes[static_cast<size_t>(worker)] - batchStart, int64_t{0}, m_globalBatch);
    if (m_dropRemainder && batchRows < m_globalBatch)
        batchRows = 0;
    const auto pieceIndex = static_cast<int>(step % m_workers);
    int64_t offset = 0;
    for (int i = 0; i < pieceIndex; ++i)
        offset += m_pieceSizes[static_cast<size_t>((worker + i) % m_workers)];
    const int64_t size = m_pieceSizes[static_cast<size_t>((worker + pieceIndex) % m_workers)];
    return {batchStart + std::min(offset, batchRows), batchStart + std::min(offset + size, batchRows)};
}

// Steps until the last piece of `worker`'s stream (OFF and FILE).
int64_t ShardPlan::stepsOf(int worker) const
{
    const int64_t n = m_streamSizes[static_cast<size_t>(worker)];
    const int64_t full = n / m_globalBatch;
    const int64_t rest = n % m_globalBatch;
    if (rest == 0 || m_dropRemainder)
        return full * m_workers;
    int64_t covered = 0;
    for (int i = 0;; ++i) {
        covered += m_pieceSizes[static_cast<size_t>((worker + i) % m_workers)];
        if (covered >= rest)
            return full * m_workers + i + 1;
    }
}

} // namespace strata::data
