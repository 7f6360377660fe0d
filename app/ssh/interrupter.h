#pragma once
// Interrupter: lets another thread abandon a session at once, while it connects or after:
// interrupt() marks it and shuts its socket down, which wakes every call blocked on that
// socket (libssh's included) with an error. Shared between the thread that owns the session
// and the one that may give up on it; all functions are thread-safe.

#include <atomic>
#include <mutex>

namespace strata::app::ssh {

class Interrupter {
public:
    Interrupter() = default;
    ~Interrupter();
    Interrupter(const Interrupter&) = delete;
    Interrupter& operator=(const Interrupter&) = delete;

    void interrupt();
    bool isInterrupted() const { return m_interrupted.load(); }

    // For the session: keeps a duplicate of `fd` to shut down (at once when already
    // interrupted), until detach(), which closes the duplicate. The duplicate means that
    // interrupt() never touches a descriptor number the session has closed and reused.
    void attach(int fd);
    void detach();

private:
    std::mutex m_mutex;
    int m_fd = -1;
    std::atomic<bool> m_interrupted{false};
};

} // namespace strata::app::ssh
