#pragma once
// ReplicaThread: the thread a replica computes on, like one of TensorFlow's per-device
// threads. It sets its own compute-thread count (GEMMs single-threaded for a logical CPU
// device, so replicas do not fight over cores) and flushes subnormals, then runs the tasks
// it is given, one at a time.

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace strata::distribute {

class ReplicaThread {
public:
    ReplicaThread(int replica, int computeThreads);
    ~ReplicaThread();
    ReplicaThread(const ReplicaThread&) = delete;
    ReplicaThread& operator=(const ReplicaThread&) = delete;

    // Starts `task` on the thread. One task at a time: wait() before the next run().
    void run(std::function<void()> task);
    // Waits for the task; rethrows what it threw.
    void wait();
    // CPU time this thread has used (its busy time), in seconds.
    double cpuSeconds() const;

private:
    void loop(int computeThreads);

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::function<void()> m_task;
    bool m_busy = false;
    bool m_stop = false;
    std::exception_ptr m_error;
    std::thread m_thread;
};

} // namespace strata::distribute
