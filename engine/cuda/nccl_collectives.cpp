// NCCL collectives: among the GPUs of this process (NcclCommunicator), and among tasks, one
// GPU each (NcclGroup, joined through a unique id the engine's rendezvous carries).

#include "nccl_collectives.h"

#include "cuda_check.h"
#include "cuda_ops.h"
#include "device_context.h"
#include "distribute/nccl_communicator.h"
#include "host.h"
#include "strata/schema/experiment.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

namespace strata::cuda {

namespace {

class NcclCommunicator final : public distribute::Communicator {
public:
    explicit NcclCommunicator(std::vector<Device> devices) : m_devices(std::move(devices))
    {
        std::vector<int> physical;
        for (const Device& d : m_devices)
            physical.push_back(host().physicalIndex(d.index));
        m_comms.resize(m_devices.size());
        STRATA_GPU_CHECK(m_devices.front().index,
                         ncclCommInitAll(m_comms.data(), static_cast<int>(m_comms.size()), physical.data()));
        m_scratch.resize(m_devices.size(), nullptr);
    }

    ~NcclCommunicator() override
    {
        for (size_t r = 0; r < m_comms.size(); ++r) {
            if (m_scratch[r])
                backend().deallocate(m_devices[r].index, m_scratch[r]);
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
               " all-reduce (grouped, in " + std::to_string(schema::kDefaultBucketBytes >> 20) + " MiB buckets) over " +
               std::to_string(m_comms.size()) + " GPUs";
    }

    // Grouped, in buckets: one launch of several all-reduces of at most a bucket each, which
    // NCCL pipelines (the buckets of PyTorch's DDP on NCCL).
    void allReduce(int rank, std::span<float> data, const distribute::CollectiveOptions& options) override
    {
        const int dev = enter(rank, "allReduce");
        constexpr size_t kBucket = schema::kDefaultBucketBytes / sizeof(float);
        STRATA_GPU_CHECK(dev, ncclGroupStart());
        for (size_t begin = 0; begin < data.size(); begin += kBucket)
            STRATA_GPU_CHECK(dev, ncclAllReduce(data.data() + begin, data.data() + begin,
                                                std::min(kBucket, data.size() - begin), ncclFloat, ncclSum,
                                                m_comms[static_cast<size_t>(rank)], stream(dev)));
        STRATA_GPU_CHECK(dev, ncclGroupEnd());
        complete(rank, "allReduce", options);
    }

    void reduce(int rank, int root, std::span<float> data, const distribute::CollectiveOptions& options) override
    {
        const int dev = enter(rank, "reduce");
        STRATA_GPU_CHECK(dev, ncclReduce(data.data(), data.data(), data.size(), ncclFloat, ncclSum, root,
                                         m_comms[static_cast<size_t>(rank)], stream(dev)));
        complete(rank, "reduce", options);
    }

    void broadcast(int rank, int root, std::span<float> data, const distribute::CollectiveOptions& options) override
    {
        const int dev = enter(rank, "broadcast");
        STRATA_GPU_CHECK(dev, ncclBroadcast(data.data(), data.data(), data.size(), ncclFloat, root,
                                            m_comms[static_cast<size_t>(rank)], stream(dev)));
        complete(rank, "broadcast", options);
    }

    void barrier(int rank, const distribute::CollectiveOptions& options) override
    {
        const int dev = m_devices[static_cast<size_t>(rank)].index;
        float*& scratch = m_scratch[static_cast<size_t>(rank)];
        if (!scratch)
            scratch = static_cast<float*>(backend().allocate(dev, sizeof(float)));
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
            throw distribute::CollectiveError(std::string(operation) + " aborted: " + m_aborted);
        return m_devices.at(static_cast<size_t>(rank)).index;
    }

    // Waits for the rank's collective to finish on its stream, at most the timeout; a rank that
    // never arrives would otherwise hold the others in the NCCL kernel forever.
    void complete(int rank, const char* operation, const distribute::CollectiveOptions& options)
    {
        const int dev = m_devices[static_cast<size_t>(rank)].index;
        const cudaStream_t s = stream(dev);
        const auto deadline = std::chrono::steady_clock::now() + options.timeout;
        for (;;) {
            const cudaError_t e = cudaStreamQuery(s);
            if (e == cudaSuccess)
                return;
            if (e != cudaErrorNotReady)
                check(e, dev, operation);
            {
                std::lock_guard lock(m_mutex);
                if (!m_aborted.empty())
                    throw distribute::CollectiveError(std::string(operation) + " aborted: " + m_aborted);
            }
            if (std::chrono::steady_clock::now() > deadline) {
                const std::string reason = std::string(operation) + " on " + "gpu:" + std::to_string(m_devices[static_cast<size_t>(rank)].index) +
                                           " timed out after " + std::to_string(options.timeout.count()) +
                                           " ms waiting for the other GPUs";
                abort(reason);
                throw distribute::CollectiveError(reason);
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

// Non-blocking NCCL (config.blocking = 0): every call returns at once, so a rank that never
// arrives is noticed at the timeout instead of hanging the task in ncclCommInitRank.
class NcclGroup final : public distribute::DeviceGroup {
public:
    explicit NcclGroup(const GroupJoin& join) : m_join(join)
    {
        ncclUniqueId id{};
        std::memcpy(&id, join.uniqueId.data(), sizeof id);
        lane(join.device.index); // makes the device current on this thread
        ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
        config.blocking = 0;
        settle(ncclCommInitRankConfig(&m_comm, join.size, id, join.rank, &config), "ncclCommInitRank");
    }

    ~NcclGroup() override
    {
        if (!m_comm)
            return;
        if (m_aborted)
            return; // ncclCommAbort freed it
        ncclCommDestroy(m_comm);
    }

    std::string algorithm() const override
    {
        int version = 0;
        ncclGetVersion(&version);
        return "NCCL " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) +
               " all-reduce over " + std::to_string(m_join.size) + " tasks' GPUs";
    }

    void allReduceQueued(std::span<float> data) override
    {
        settle(ncclAllReduce(data.data(), data.data(), data.size(), ncclFloat, ncclSum, m_comm,
                             stream(m_join.device.index)),
               "ncclAllReduce");
    }

    void waitQueued() override
    {
        const int dev = m_join.device.index;
        const cudaStream_t s = stream(dev);
        const auto deadline = std::chrono::steady_clock::now() + m_join.timeout;
        for (;;) {
            const cudaError_t e = cudaStreamQuery(s);
            if (e == cudaSuccess)
                return;
            if (e != cudaErrorNotReady)
                check(e, dev, "the gradient all-reduce");
            ncclResult_t state = ncclSuccess;
            ncclCommGetAsyncError(m_comm, &state);
            if (state != ncclSuccess && state != ncclInProgress)
                fail("the gradient all-reduce failed: " + std::string(ncclGetErrorString(state)));
            if (std::chrono::steady_clock::now() > deadline)
                fail("the gradient all-reduce timed out after " + std::to_string(m_join.timeout.count()) + " ms");
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    }

private:
    // Waits out a non-blocking call (ncclInProgress) within the timeout.
    void settle(ncclResult_t result, const char* call)
    {
        const auto deadline = std::chrono::steady_clock::now() + m_join.timeout;
        while (result == ncclInProgress) {
            if (std::chrono::steady_clock::now() > deadline)
                fail(std::string(call) + " did not complete within " + std::to_string(m_join.timeout.count()) +
                     " ms (a task did not join)");
            std::this_thread::sleep_for(std::chrono::microseconds(100));
            if (m_comm)
                ncclCommGetAsyncError(m_comm, &result);
        }
        if (result != ncclSuccess)
            fail(std::string(call) + ": " + ncclGetErrorString(result));
    }

    // Aborts the communicator, so no kernel waits for the missing task any longer, and throws
    // what the engine makes of it (it names a task that left, when one did).
    [[noreturn]] void fail(const std::string& what)
    {
        if (m_comm && !m_aborted) {
            ncclCommAbort(m_comm);
            m_aborted = true;
        }
        throw distribute::CollectiveError(m_join.explain(what));
    }

    GroupJoin m_join;
    ncclComm_t m_comm = nullptr;
    bool m_aborted = false;
};

} // namespace

std::unique_ptr<distribute::Communicator> NcclCollectives::communicator(const std::vector<Device>& devices)
{
    return std::make_unique<NcclCommunicator>(devices);
}

std::string NcclCollectives::uniqueId(int device)
{
    ncclUniqueId id{};
    STRATA_GPU_CHECK(device, ncclGetUniqueId(&id));
    return {reinterpret_cast<const char*>(&id), sizeof id};
}

std::unique_ptr<distribute::DeviceGroup> NcclCollectives::join(const GroupJoin& join)
{
    if (join.uniqueId.size() != sizeof(ncclUniqueId))
        throw distribute::CollectiveError("the NCCL unique id from the group's first task has " + std::to_string(join.uniqueId.size()) + " bytes, not " +
                              std::to_string(sizeof(ncclUniqueId)));
    return std::make_unique<NcclGroup>(join);
}

} // namespace strata::cuda
