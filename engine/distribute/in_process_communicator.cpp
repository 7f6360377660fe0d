#include "strata/distribute/in_process_communicator.h"

#include "cuda/ops.h"
#include "strata/tensor/gpu.h"

#include <algorithm>
#include <cstring>

namespace strata::distribute {

InProcessCommunicator::InProcessCommunicator(int size)
    : m_size(size), m_present(static_cast<size_t>(size), false), m_buffers(static_cast<size_t>(size))
{
    STRATA_CHECK(size >= 1, "a communicator needs at least one rank");
}

InProcessCommunicator::InProcessCommunicator(std::vector<Device> devices)
    : InProcessCommunicator(static_cast<int>(devices.size()))
{
    m_devices = std::move(devices);
    if (m_devices.front().isCpu())
        return;
    for (const Device& d : m_devices)
        if (d.isCpu() || gpu::physicalIndex(d.index) != gpu::physicalIndex(m_devices.front().index))
            throw GpuError("in-process GPU reduction needs logical devices of one GPU; " + d.str() + " is not on the "
                           "GPU of " + m_devices.front().str() + " (physical GPUs reduce through NCCL)");
    if (m_size > cuda::kMaxSummands)
        throw GpuError("in-process GPU reduction supports at most " + std::to_string(cuda::kMaxSummands) + " ranks");
    m_gpu = m_devices.front().index;
}

std::string InProcessCommunicator::algorithm() const
{
    if (m_gpu >= 0)
        return "copy-based reduce-scatter + all-gather in the memory of one GPU, over " + std::to_string(m_size) +
               " logical devices";
    return "in-process reduce-scatter + all-gather over " + std::to_string(m_size) + " threads";
}

void InProcessCommunicator::sumInto(int rank, float* data, size_t offset, size_t n)
{
    if (m_gpu >= 0) {
        std::vector<const float*> parts;
        for (const auto& b : m_buffers)
            parts.push_back(b.data() + offset);
        cuda::ops().sumBuffers(m_devices[static_cast<size_t>(rank)].index, parts.data(), m_size, data,
                         static_cast<int64_t>(n));
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        float sum = m_buffers[0][offset + i];
        for (size_t r = 1; r < m_buffers.size(); ++r)
            sum += m_buffers[r][offset + i];
        data[i] = sum;
    }
}

void InProcessCommunicator::copy(int rank, float* to, const float* from, size_t n)
{
    if (m_gpu >= 0)
        return cuda::ops().copyOnDevice(m_devices[static_cast<size_t>(rank)].index, to, from, static_cast<int64_t>(n));
    std::memcpy(to, from, n * sizeof(float));
}

void InProcessCommunicator::settle(int rank)
{
    if (m_gpu >= 0)
        cuda::ops().synchronize(m_devices[static_cast<size_t>(rank)].index);
}

void InProcessCommunicator::abort(const std::string& reason)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_aborted.empty())
            m_aborted = reason;
    }
    m_changed.notify_all();
}

void InProcessCommunicator::arrive(int rank, const char* operation, const CollectiveOptions& options)
{
    std::unique_lock lock(m_mutex);
    if (!m_aborted.empty())
        throw CollectiveError(std::string(operation) + " aborted: " + m_aborted);
    const uint64_t generation = m_generation;
    m_present[static_cast<size_t>(rank)] = true;
    if (++m_arrived == m_size) {
        m_arrived = 0;
        std::fill(m_present.begin(), m_present.end(), false);
        ++m_generation;
        lock.unlock();
        m_changed.notify_all();
        return;
    }
    const bool done = m_changed.wait_for(lock, options.timeout, [&] {
        return m_generation != generation || !m_aborted.empty();
    });
    if (m_generation != generation)
        return;
    if (!m_aborted.empty())
        throw CollectiveError(std::string(operation) + " aborted: " + m_aborted);
    if (!done) {
        std::string missing;
        for (int r = 0; r < m_size; ++r)
            if (!m_present[static_cast<size_t>(r)])
                missing += (missing.empty() ? "" : ", ") + std::to_string(r);
        const std::string reason = std::string(operation) + " timed out after " +
                                   std::to_string(options.timeout.count()) + " ms waiting for rank(s) " + missing;
        m_aborted = reason;
        lock.unlock();
        m_changed.notify_all();
        throw CollectiveError(reason);
    }
}

void InProcessCommunicator::exchange(int rank, std::span<float> data, const char* operation,
                                     const CollectiveOptions& options)
{
    STRATA_CHECK(rank >= 0 && rank < m_size, "rank out of range");
    settle(rank);
    {
        std::lock_guard lock(m_mutex);
        m_buffers[static_cast<size_t>(rank)] = data;
    }
    arrive(rank, operation, options);
    for (const auto& b : m_buffers)
        if (b.size() != data.size())
            throw CollectiveError(std::string(operation) + ": ranks passed buffers of different sizes (" +
                                  std::to_string(b.size()) + " and " + std::to_string(data.size()) + ")");
}

void InProcessCommunicator::allReduce(int rank, std::span<float> data, const CollectiveOptions& options)
{
    if (m_size == 1)
        return;
    exchange(rank, data, "allReduce", options);
    const size_t n = data.size();
    const size_t size = static_cast<size_t>(m_size);
    const auto part = [&](size_t r) { return std::pair(n * r / size, n * (r + 1) / size); };
    // Reduce-scatter: this rank sums its part over all buffers, in rank order. Only this
    // rank touches part `rank` of any buffer until the next barrier.
    const auto [begin, end] = part(static_cast<size_t>(rank));
    sumInto(rank, data.data() + begin, begin, end - begin);
    settle(rank);
    arrive(rank, "allReduce", options);
    // All-gather: the parts the others summed.
    for (size_t r = 0; r < size; ++r) {
        if (r == static_cast<size_t>(rank))
            continue;
        const auto [b, e] = part(r);
        copy(rank, data.data() + b, m_buffers[r].data() + b, e - b);
    }
    settle(rank);
    // No rank may reuse its buffer while another still reads it.
    arrive(rank, "allReduce", options);
}

void InProcessCommunicator::reduce(int rank, int root, std::span<float> data, const CollectiveOptions& options)
{
    if (m_size == 1)
        return;
    exchange(rank, data, "reduce", options);
    if (rank == root)
        sumInto(rank, data.data(), 0, data.size());
    settle(rank);
    arrive(rank, "reduce", options);
}

void InProcessCommunicator::broadcast(int rank, int root, std::span<float> data, const CollectiveOptions& options)
{
    if (m_size == 1)
        return;
    exchange(rank, data, "broadcast", options);
    if (rank != root)
        copy(rank, data.data(), m_buffers[static_cast<size_t>(root)].data(), data.size());
    settle(rank);
    arrive(rank, "broadcast", options);
}

void InProcessCommunicator::barrier(int rank, const CollectiveOptions& options)
{
    if (m_size > 1)
        arrive(rank, "barrier", options);
}

} // namespace strata::distribute
