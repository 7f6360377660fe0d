#include "strata/distribute/process_group.h"

#include "strata/distribute/rendezvous.h"

#include <gloo/allreduce_halving_doubling.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/barrier_all_to_one.h>
#include <gloo/broadcast_one_to_all.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <cstring>
#include <utility>

namespace strata::distribute {

namespace {

std::string joined(const std::vector<std::string>& items)
{
    std::string out;
    for (const auto& s : items)
        out += (out.empty() ? "" : "; ") + s;
    return out;
}

} // namespace

AllReduceAlgorithm allReduceAlgorithmFor(int ranks, size_t bytes)
{
    return ranks >= kHalvingDoublingFromRanks && bytes <= kHalvingDoublingUpToBytes ? AllReduceAlgorithm::HalvingDoubling
                                                                                   : AllReduceAlgorithm::Ring;
}

const char* algorithmName(AllReduceAlgorithm algorithm)
{
    return algorithm == AllReduceAlgorithm::Ring ? "chunked ring" : "halving-doubling";
}

ProcessGroup::ProcessGroup(ProcessGroupOptions options) : m_options(std::move(options))
{
    STRATA_CHECK(rank() >= 0 && rank() < size(), "rank outside the task list");
    if (rank() == 0)
        m_server = std::make_unique<RendezvousServer>(m_options.rendezvousHost, m_options.rendezvousPort,
                                                      m_options.token);
    // Joining waits for the slowest task to start; once joined, the collectives' timeout holds.
    const auto joinTimeout = m_options.joinTimeout.count() > 0 ? m_options.joinTimeout : m_options.timeout;
    m_store = std::make_unique<RendezvousClient>(m_options.rendezvousHost, m_options.rendezvousPort, m_options.token,
                                                 m_options.taskNames, rank(), joinTimeout);
    gloo::transport::tcp::attr attr;
    attr.hostname = m_options.host;
    try {
        auto device = gloo::transport::tcp::CreateDevice(attr);
        auto context = std::make_shared<gloo::rendezvous::Context>(rank(), size());
        context->setTimeout(m_options.timeout);
        gloo::rendezvous::PrefixStore store("gloo", *m_store);
        m_store->setJoinAllowance(joinTimeout);
        context->connectFullMesh(store, device);
        m_store->setJoinAllowance(std::chrono::milliseconds(0));
        m_store->setTimeout(m_options.timeout);
        m_context = context;
    } catch (const CollectiveError&) {
        throw;
    } catch (const std::exception& e) {
        fail("joining the job", e);
    }
    m_queueThread = std::thread([this] { queueLoop(); });
}

ProcessGroup::~ProcessGroup()
{
    {
        std::lock_guard lock(m_queueMutex);
        m_stopping = true;
    }
    m_queueChanged.notify_all();
    if (m_queueThread.joinable())
        m_queueThread.join();
    m_algorithms.clear();
    m_staging.clear();
    m_context.reset();
    m_store.reset();
    m_server.reset();
}

std::string ProcessGroup::algorithm() const
{
    const std::string n = std::to_string(size());
    if (allReduceAlgorithmFor(size(), 0) == allReduceAlgorithmFor(size(), SIZE_MAX))
        return std::string("Gloo ") + algorithmName(allReduceAlgorithmFor(size(), 0)) + " all-reduce over TCP among " + n +
               " tasks";
    return "Gloo all-reduce over TCP among " + n + " tasks: halving-doubling up to " +
           std::to_string(kHalvingDoublingUpToBytes / 1024) + " KiB, the chunked ring above";
}

template <typename Algo, typename T, typename... Extra>
gloo::Algorithm& ProcessGroup::algorithmFor(char kind, T* data, size_t count, Extra... extra)
{
    int root = 0;
    ((root = static_cast<int>(extra)), ...);
    const auto key = std::make_tuple(kind, static_cast<const void*>(data), count, root);
    auto it = m_algorithms.find(key);
    if (it == m_algorithms.end()) {
        // Gloo algorithms hold their buffers: built once per buffer, reused every step.
        try {
            it = m_algorithms.emplace(key, std::make_unique<Algo>(m_context, std::vector<T*>{data},
                                                                   static_cast<int>(count), extra...)).first;
        } catch (const std::exception& e) {
            fail("setting up a collective", e);
        }
    }
    return *it->second;
}

void ProcessGroup::run(const char* operation, gloo::Algorithm& algorithm)
{
    try {
        algorithm.run();
    } catch (const std::exception& e) {
        fail(operation, e);
    }
}

void ProcessGroup::fail(const char* operation, const std::exception& cause)
{
    // The rendezvous may see the lost connection a moment after Gloo did.
    std::vector<std::string> lost;
    for (int attempt = 0; attempt < 20 && lost.empty(); ++attempt) {
        lost = m_store ? m_store->lostTasks() : std::vector<std::string>{};
        if (lost.empty())
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!lost.empty())
        throw CollectiveError("lost " + joined(lost) + " during " + operation + " (" + taskName(rank()) +
                              " saw: " + cause.what() + ")");
    throw CollectiveError(std::string(operation) + " failed on " + taskName(rank()) + ": " + cause.what());
}

template <typename Algo, typename T, typename... Extra>
void ProcessGroup::runStaged(const char* operation, char kind, std::span<T> data, Extra... extra)
{
    waitQueued();
    if (data.empty())
        return;
    int root = 0;
    ((root = static_cast<int>(extra)), ...);
    // The group's own buffer for this size: built in the same order on every rank (they call
    // the same collectives), so Gloo's slots agree whatever buffers the callers pass.
    std::vector<double>& staging = m_staging[std::make_tuple(kind, nullptr, data.size(), root)];
    if (staging.empty())
        staging.resize((data.size_bytes() + sizeof(double) - 1) / sizeof(double));
    T* buffer = reinterpret_cast<T*>(staging.data());
    std::memcpy(buffer, data.data(), data.size_bytes());
    run(operation, algorithmFor<Algo>(kind, buffer, data.size(), extra...));
    std::memcpy(data.data(), buffer, data.size_bytes());
}

void ProcessGroup::allReduce(std::span<float> data)
{
    allReduce(data, allReduceAlgorithmFor(size(), data.size_bytes()));
}

void ProcessGroup::allReduce(std::span<float> data, AllReduceAlgorithm algorithm)
{
    if (algorithm == AllReduceAlgorithm::Ring)
        runStaged<gloo::AllreduceRingChunked<float>>("all-reduce", 'a', data);
    else
        runStaged<gloo::AllreduceHalvingDoubling<float>>("all-reduce", 'h', data);
}

void ProcessGroup::allReduce(std::span<double> data)
{
    if (allReduceAlgorithmFor(size(), data.size_bytes()) == AllReduceAlgorithm::Ring)
        runStaged<gloo::AllreduceRingChunked<double>>("all-reduce", 'd', data);
    else
        runStaged<gloo::AllreduceHalvingDoubling<double>>("all-reduce", 'H', data);
}

void ProcessGroup::broadcast(std::span<float> data, int root)
{
    runStaged<gloo::BroadcastOneToAll<float>>("broadcast", 'b', data, root);
}

void ProcessGroup::broadcast(std::string& bytes, int root)
{
    waitQueued();
    // Size first, then the bytes: through one-time buffers (a restore happens once).
    double size = static_cast<double>(bytes.size());
    gloo::BroadcastOneToAll<double> sizeAlgo(m_context, {&size}, 1, root);
    run("broadcast", sizeAlgo);
    bytes.resize(static_cast<size_t>(size));
    if (bytes.empty())
        return;
    gloo::BroadcastOneToAll<char> bytesAlgo(m_context, {bytes.data()}, bytes.size(), root);
    run("broadcast", bytesAlgo);
}

void ProcessGroup::barrier()
{
    waitQueued();
    gloo::BarrierAllToOne barrier(m_context);
    run("barrier", barrier);
}

void ProcessGroup::allReduceQueued(std::span<float> data)
{
    {
        std::lock_guard lock(m_queueMutex);
        m_queue.emplace_back(data, m_queuedSinceWait++);
    }
    m_queueChanged.notify_all();
}

void ProcessGroup::waitQueued()
{
    std::unique_lock lock(m_queueMutex);
    m_queueChanged.wait(lock, [this] { return m_queue.empty() && !m_queueBusy; });
    m_queuedSinceWait = 0;
    if (m_queueError)
        std::rethrow_exception(std::exchange(m_queueError, nullptr));
}

void ProcessGroup::queueLoop()
{
    std::unique_lock lock(m_queueMutex);
    while (true) {
        m_queueChanged.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
        if (m_stopping)
            return;
        const auto [data, bucket] = m_queue.front();
        m_queue.pop_front();
        m_queueBusy = true;
        const bool failed = m_queueError != nullptr;
        lock.unlock();
        std::exception_ptr error;
        if (!failed) { // after a failure the rest is dropped: the step is lost anyway
            const SpanScope span(m_spans, TraceLane::Reduce, "bucket", bucket);
            try {
                run("gradient all-reduce",
                    allReduceAlgorithmFor(size(), data.size_bytes()) == AllReduceAlgorithm::Ring
                        ? algorithmFor<gloo::AllreduceRingChunked<float>>('q', data.data(), data.size())
                        : algorithmFor<gloo::AllreduceHalvingDoubling<float>>('Q', data.data(), data.size()));
            } catch (...) {
                error = std::current_exception();
            }
        }
        lock.lock();
        if (error && !m_queueError)
            m_queueError = error;
        m_queueBusy = false;
        m_queueChanged.notify_all();
    }
}

int64_t ProcessGroup::clockOffsetUs() const { return rank() == 0 ? 0 : m_store->clockOffsetUs(); }

void ProcessGroup::leave(const std::string& failure) { m_store->goodbye(failure); }

void ProcessGroup::leaveTogether()
{
    barrier();
    leave();
    if (m_server)
        m_server->waitUntilAllLeft(m_options.timeout);
}

} // namespace strata::distribute
