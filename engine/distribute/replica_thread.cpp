#include "strata/distribute/replica_thread.h"

#include "strata/tensor/blas.h"
#include "strata/tensor/denormals.h"

#include <pthread.h>
#include <time.h>

#include <string>
#include <utility>

namespace strata::distribute {

ReplicaThread::ReplicaThread(int replica, int computeThreads)
    : m_thread([this, computeThreads] { loop(computeThreads); })
{
    const std::string name = "replica-" + std::to_string(replica);
    pthread_setname_np(m_thread.native_handle(), name.substr(0, 15).c_str());
}

ReplicaThread::~ReplicaThread()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    m_thread.join();
}

void ReplicaThread::loop(int computeThreads)
{
    blas::setThreads(computeThreads);
    flushDenormalsToZero();
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_changed.wait(lock, [this] { return m_stop || m_task; });
        if (m_stop)
            return;
        auto task = std::move(m_task);
        m_task = nullptr;
        lock.unlock();
        std::exception_ptr error;
        try {
            task();
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        m_error = error;
        m_busy = false;
        m_changed.notify_all();
    }
}

void ReplicaThread::run(std::function<void()> task)
{
    {
        std::lock_guard lock(m_mutex);
        m_task = std::move(task);
        m_busy = true;
    }
    m_changed.notify_all();
}

void ReplicaThread::wait()
{
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [this] { return !m_busy; });
    if (m_error)
        std::rethrow_exception(std::exchange(m_error, nullptr));
}

double ReplicaThread::cpuSeconds() const
{
    clockid_t clock;
    timespec ts{};
    if (pthread_getcpuclockid(const_cast<std::thread&>(m_thread).native_handle(), &clock) != 0 ||
        clock_gettime(clock, &ts) != 0)
        return 0;
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

} // namespace strata::distribute
