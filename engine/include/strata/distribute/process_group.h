#pragma once
// ProcessGroup: the training tasks of one multi-worker job (chief, then workers, one rank
// each), connected through Gloo over TCP (torch.distributed's process group). Rank 0 hosts
// the rendezvous; every rank bootstraps its Gloo context from it, with Gloo's connections
// bound to the task's own host.
//
// Collectives are Gloo's algorithms, built once per buffer and reused (building one takes
// the next of Gloo's slots, which must agree on every rank). The synchronous collectives
// therefore run on buffers the group owns, one per size, copied in and out: callers may pass
// any buffer. Queued all-reduces run in place on the caller's buffers, identified by their
// address: pass the same buffers every time (the strategy's gradient buckets). The all-reduce is
// the chunked ring (reduce-scatter, then all-gather): every element is summed once, by one
// rank, and copied to the others, so all ranks end bitwise equal (the plain ring sums in a
// different order on each rank from three ranks on). Every rank calls the same collectives in
// the same order. A collective that fails (a peer killed, stalled past the timeout)
// throws CollectiveError naming the lost task as the rendezvous saw it.

#include "strata/core/span_recorder.h"
#include "strata/distribute/communicator.h"

#include <chrono>
#include <cstddef>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace gloo {
class Algorithm;
class Context;
} // namespace gloo

namespace strata::distribute {

class RendezvousServer;
class RendezvousClient;

// Gloo's all-reduce algorithms that leave every rank bitwise equal (each element summed once,
// by one rank, and copied to the others).
enum class AllReduceAlgorithm {
    Ring,             // chunked ring: 2(N-1) steps, each moving 1/N of the buffer
    HalvingDoubling,  // recursive halving, then doubling: 2 log2(N) steps
};

// Where halving-doubling is chosen: from this many tasks, for buffers up to this size.
inline constexpr int kHalvingDoublingFromRanks = 4;
inline constexpr size_t kHalvingDoublingUpToBytes = size_t{4} << 20;

// The one for `ranks` tasks and a buffer of `bytes` (bench/README.md, "Collectives against the
// number of tasks", measured where the choice changes).
AllReduceAlgorithm allReduceAlgorithmFor(int ranks, size_t bytes);
const char* algorithmName(AllReduceAlgorithm algorithm);

struct ProcessGroupOptions {
    std::vector<std::string> taskNames; // every training task in rank order ("chief:0", "worker:0", ...)
    int rank = 0;
    std::string rendezvousHost; // rank 0's host and port: where the rendezvous listens
    int rendezvousPort = 0;
    std::string host;           // this task's host: Gloo's connections bind to it
    std::string token;          // the job's secret
    // Every collective: a task that does not arrive in time is lost.
    std::chrono::milliseconds timeout{10000};
    // Joining: how long the tasks wait for each other at the start (0: `timeout`).
    std::chrono::milliseconds joinTimeout{0};
};

class ProcessGroup {
public:
    // Joins the job: rank 0 starts the rendezvous first. Throws CollectiveError naming the
    // tasks that did not join in time, IoError when rank 0 cannot listen on its address.
    explicit ProcessGroup(ProcessGroupOptions options);
    ~ProcessGroup();
    ProcessGroup(const ProcessGroup&) = delete;
    ProcessGroup& operator=(const ProcessGroup&) = delete;

    int rank() const { return m_options.rank; }
    int size() const { return static_cast<int>(m_options.taskNames.size()); }
    const std::string& taskName(int rank) const { return m_options.taskNames[static_cast<size_t>(rank)]; }
    std::chrono::milliseconds timeout() const { return m_options.timeout; }
    std::string algorithm() const;

    // Every rank's data becomes the element-wise sum over the ranks, by
    // allReduceAlgorithmFor(size(), bytes) unless an algorithm is given (every rank the same).
    void allReduce(std::span<float> data);
    void allReduce(std::span<float> data, AllReduceAlgorithm algorithm);
    void allReduce(std::span<double> data);
    // Every rank's data becomes `root`'s (sizes must match).
    void broadcast(std::span<float> data, int root = 0);
    // Every rank's bytes become `root`'s (any size).
    void broadcast(std::string& bytes, int root = 0);
    void barrier();

    // Queued all-reduces, run in place and in order on the group's thread while the caller
    // computes (gradient buckets overlapping the backward pass); `data` must stay valid until
    // waitQueued(), which returns when all are done and rethrows the first failure.
    void allReduceQueued(std::span<float> data);
    void waitQueued();
    // Each queued all-reduce from now on as a span "bucket <k>" on the reduce lane (k: its
    // place among those queued since the last waitQueued()); null: none. Set between steps.
    void setSpanRecorder(SpanRecorder* recorder) { m_spans = recorder; }
    // Microseconds to add to this task's system clock to read rank 0's (0 on rank 0), estimated
    // through the rendezvous when the task joined and refreshed by its heartbeats.
    int64_t clockOffsetUs() const;

    // This task leaves: on purpose (finished, or stopping after another's failure), and the
    // others will not report it as lost; or because of its own `failure`, which they report.
    void leave(const std::string& failure = "");
    // The job's end for a task that finished well: a barrier, then goodbye. The task hosting
    // the rendezvous returns once the others have left too (at most the timeout): a barrier's
    // root finishes first, and its exit would otherwise reset a connection a peer still reads.
    void leaveTogether();

private:
    template <typename Algo, typename T, typename... Extra>
    gloo::Algorithm& algorithmFor(char kind, T* data, size_t count, Extra... extra);
    template <typename Algo, typename T, typename... Extra>
    void runStaged(const char* operation, char kind, std::span<T> data, Extra... extra);
    void run(const char* operation, gloo::Algorithm& algorithm);
    [[noreturn]] void fail(const char* operation, const std::exception& cause);
    void queueLoop();

    ProcessGroupOptions m_options;
    std::unique_ptr<RendezvousServer> m_server;
    std::unique_ptr<RendezvousClient> m_store;
    std::shared_ptr<gloo::Context> m_context;
    std::map<std::tuple<char, const void*, size_t, int>, std::unique_ptr<gloo::Algorithm>> m_algorithms;
    std::map<std::tuple<char, const void*, size_t, int>, std::vector<double>> m_staging;

    std::mutex m_queueMutex;
    std::condition_variable m_queueChanged;
    std::deque<std::pair<std::span<float>, int32_t>> m_queue; // a buffer and its place in the step
    int32_t m_queuedSinceWait = 0;
    SpanRecorder* m_spans = nullptr;
    bool m_queueBusy = false;
    bool m_stopping = false;
    std::exception_ptr m_queueError;
    std::thread m_queueThread;
};

} // namespace strata::distribute
