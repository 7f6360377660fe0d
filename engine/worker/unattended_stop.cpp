#include "unattended_stop.h"

#include "strata/schema/events.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>

namespace strata::cli {

UnattendedStop::UnattendedStop(std::string attachLock, int64_t seconds, StopSignals& stop, run::EventSink& events)
    : m_lockPath(std::move(attachLock)), m_seconds(seconds), m_stop(stop), m_events(events)
{
    m_thread = std::thread([this] { watch(); });
    pthread_setname_np(m_thread.native_handle(), "unattended");
}

UnattendedStop::~UnattendedStop()
{
    {
        std::lock_guard lock(m_mutex);
        m_closing = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

bool UnattendedStop::attached() const
{
    const int fd = ::open(m_lockPath.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false; // no follower ever made the lock file
    const bool taken = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    ::close(fd); // releases it, when taken
    return !taken;
}

void UnattendedStop::watch()
{
    using Clock = std::chrono::steady_clock;
    auto alone = Clock::now(); // since when nobody has been attached
    std::unique_lock lock(m_mutex);
    while (!m_wake.wait_for(lock, std::chrono::seconds(1), [this] { return m_closing; })) {
        const auto now = Clock::now();
        if (attached()) {
            alone = now;
            continue;
        }
        if (now - alone < std::chrono::seconds(m_seconds))
            continue;
        m_events.emit(schema::event::kLog, {{"level", "info"},
                                          {"message", "no app attached for " + std::to_string(m_seconds) +
                                                          " s (cluster.stop_unattended_seconds): stopping"}});
        m_stop.request();
        return;
    }
}

} // namespace strata::cli
