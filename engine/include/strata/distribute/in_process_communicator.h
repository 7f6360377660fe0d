#pragma once
// InProcessCommunicator: the ranks are threads of this process (one per replica) and the
// buffers are shared memory. Always built, so every strategy runs and is tested without
// Gloo or a GPU. Given GPU devices (logical devices of one physical GPU, where NCCL refuses
// two ranks), the buffers are that GPU's memory and the sums and copies run as its kernels,
// each rank's on its own stream, with the same order of summation.
//
// allReduce is a reduce-scatter followed by an all-gather: rank r sums part r of every
// buffer, then every rank copies the parts it did not sum. Each element is summed in rank
// order (0, 1, ..., n-1) whichever rank does it, so results are deterministic and equal on
// every rank.

#include "strata/core/device.h"
#include "strata/distribute/communicator.h"

#include <condition_variable>
#include <mutex>
#include <vector>

namespace strata::distribute {

class InProcessCommunicator final : public Communicator {
public:
    explicit InProcessCommunicator(int size);
    // One rank per device in `devices`: host memory for CPUs, device memory for logical GPUs of
    // one physical GPU (throws GpuError otherwise).
    explicit InProcessCommunicator(std::vector<Device> devices);

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
    // data[0, n) = the sum of the buffers from `offset` on, in rank order.
    void sumInto(int rank, float* data, size_t offset, size_t n);
    void copy(int rank, float* to, const float* from, size_t n);
    // A GPU rank's work so far has finished (its buffer may be read by the others).
    void settle(int rank);

    int m_size;
    int m_gpu = -1; // the GPU (logical index of the first rank) when the buffers are device memory
    std::vector<Device> m_devices;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    int m_arrived = 0;
    uint64_t m_generation = 0;
    std::vector<bool> m_present; // which ranks reached the barrier now forming
    std::vector<std::span<float>> m_buffers;
    std::string m_aborted; // non-empty: the group failed, and why
};

} // namespace strata::distribute
