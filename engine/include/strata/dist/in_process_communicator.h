#pragma once
// InProcessCommunicator: the ranks are threads of this process (one per replica) and the
// buffers are shared memory. Always built, so every strategy runs and is tested without
// Gloo or a GPU.
//
// allReduce is a reduce-scatter followed by an all-gather: rank r sums part r of every
// buffer, then every rank copies the parts it did not sum. Each element is summed in rank
// order (0, 1, ..., n-1) whichever rank does it, so results are deterministic and equal on
// every rank.

#include "strata/dist/communicator.h"

#include <condition_variable>
#include <mutex>
#include <vector>

namespace strata::dist {

class InProcessCommunicator final : public Communicator {
public:
    explicit InProcessCommunicator(int size);

    int size() const override { return m_size; }
    std::string algorithm() const override;
    void allReduce(int rank, std::span<float> data, const CollectiveOptions& options) override;
    void reduce(int rank, int root, std::span<float> data, const CollectiveOptions& options) override;
    void broadcast(int rank, int root, std::span<float> data, const CollectiveOptions& options) override;
    void barrier(int rank, const CollectiveOptions& options) override;
    void abort(const std::string& reason) override;

private:
    // Publishes `data` as this rank's buffer and waits until every rank has.
    void exchange(int rank, std::span<float> data, const char* operation, const CollectiveOptions& options);
    void arrive(int rank, const char* operation, const CollectiveOptions& options);

    int m_size;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    int m_arrived = 0;
    uint64_t m_generation = 0;
    std::vector<bool> m_present; // which ranks reached the barrier now forming
    std::vector<std::span<float>> m_buffers;
    std::string m_aborted; // non-empty: the group failed, and why
};

} // namespace strata::dist
