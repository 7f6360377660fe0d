// NCCL collectives among GPUs of this process (built with the CUDA backend only).

#include "nccl_communicator.h"

#include "cuda/cuda_check.h"
#include "cuda/device_context.h"
#include "cuda/ops.h"
#include "strata/tensor/gpu.h"

#include <chrono>
#include <mutex>
#include <thread>

namespace strata::dist {

namespace {

class NcclCommunicator final : public Communicator {
public:
    explicit NcclCommunicator(std::vector<Device> devices) : m_devices(std::move(devices))
    {
        std::vector<int> physical;
        for (const Device& d : m_devices)
            physical.push_back(gpu::physicalIndex(d.index));
        m_comms.resize(m_devices.size());
        STRATA_GPU_CHECK(m_devices.front().index,
                         ncclCommInitAll(m_comms.data(), static_cast<int>(m_comms.size()), physical.data()));
        m_scratch.resize(m_devices.size(), nullptr);
    }

    ~NcclCommunicator() override
    {
        for (size_t r = 0; r < m_comms.size(); ++r) {
            if (m_scratch[r])
                cuda::deallocate(m_devices[r].index, m_scratch[r]);
            // An aborted communicator is already gone.
            if (m_aborted.empty())
                ncclCommDestroy(m_comms[r]);
        }
    }

    int size() const override { return static_cast<int>(m_comms.size()); }

    std::string algorithm() const override
    {
        int version = 0;
        ncclGetVersion(&version);
        return "NCCL " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) +
               " all-reduce over " + std::to_string(m_comms.size()) + " GPUs";
    }

    void allReduce(int rank, std::span<float> data, const CollectiveOptions& options) override
    {
        const int dev = enter(rank, "allReduce");
        STRATA_GPU_CHECK(dev, ncclAllReduce(data.data(), data.data(), data.size(), ncclFloat, ncclSum,
                                            m_comms[static_cast<size_t>(rank)], cuda::stream(dev)));
        complete(rank, "allReduce", options);
    }

    void reduce(int rank, int root, std::span<float> data, const CollectiveOptions& options) override
    {
        const int dev = enter(rank, "reduce");
        STRATA_GPU_CHECK(dev, ncclReduce(data.data(), data.data(), data.size(), ncclFloat, ncclSum, root,
                                         m_comms[static_cast<size_t>(rank)], cuda::stream(dev)));
        complete(rank, "reduce", options);
    }

    void broadcast(int rank, int root, std::span<float> data, const CollectiveOptions& options) override
    {
        const int dev = enter(rank, "broadcast");
        STRATA_GPU_CHECK(dev, ncclBroadcast(data.data(), data.data(), data.size(), ncclFloat, root,
                                            m_comms[static_cast<size_t>(rank)], cuda::stream(dev)));
        complete(rank, "broadcast", options);
    }

    void barrier(int rank, const CollectiveOptions& options) override
    {
        const int dev = m_devices[static_cast<size_t>(rank)].index;
        float*& scratch = m_scratch[static_cast<size_t>(rank)];
        if (!scratch)
            scratch = static_cast<float*>(cuda::allocate(dev, sizeof(float)));
        allReduce(rank, {scratch, 1}, options);
    }

    void abort(const std::string& reason) override
    {
        std::lock_guard lock(m_mutex);
        if (!m_aborted.empty())
            return;
        m_aborted = reason;
        for (ncclComm_t c : m_comms)
            ncclCommAbort(c);
    }

private:
    // The rank's device, after checking the group still stands.
    int enter(int rank, const char* operation)
    {
        std::lock_guard lock(m_mutex);
        if (!m_aborted.empty())
            throw CollectiveError(std::string(operation) + " aborted: " + m_aborted);
        return m_devices.at(static_cast<size_t>(rank)).index;
    }

    // Waits for the rank's collective to finish on its stream, at most the timeout; a rank that
    // never arrives would otherwise hold the others in the NCCL kernel forever.
    void complete(int rank, const char* operation, const CollectiveOptions& options)
    {
        const int dev = m_devices[static_cast<size_t>(rank)].index;
        const cudaStream_t s = cuda::stream(dev);
        const auto deadline = std::chrono::steady_clock::now() + options.timeout;
        for (;;) {
            const cudaError_t e = cudaStreamQuery(s);
            if (e == cudaSuccess)
                return;
            if (e != cudaErrorNotReady)
                cuda::check(e, dev, operation);
            {
                std::lock_guard lock(m_mutex);
                if (!m_aborted.empty())
                    throw CollectiveError(std::string(operation) + " aborted: " + m_aborted);
            }
            if (std::chrono::steady_clock::now() > deadline) {
                const std::string reason = std::string(operation) + " on " + m_devices[static_cast<size_t>(rank)].str() +
                                           " timed out after " + std::to_string(options.timeout.count()) +
                                           " ms waiting for the other GPUs";
                abort(reason);
                throw CollectiveError(reason);
            }
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    }

    std::vector<Device> m_devices;
    std::vector<ncclComm_t> m_comms;
    std::vector<float*> m_scratch;
    std::mutex m_mutex;
    std::string m_aborted;
};

} // namespace

std::unique_ptr<Communicator> createNcclCommunicator(const std::vector<Device>& devices)
{
    return std::make_unique<NcclCommunicator>(devices);
}

} // namespace strata::dist
