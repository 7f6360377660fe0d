#include "stop_signals.h"

#include <pthread.h>

#include <csignal>

namespace strata::cli {

namespace {

sigset_t stopSignals()
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    return set;
}

} // namespace

StopSignals::StopSignals()
{
    const sigset_t set = stopSignals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    m_waiter = std::thread([this, set] {
        int signal = 0;
        while (!m_closing.load()) {
            if (sigwait(&set, &signal) == 0 && !m_closing.load())
                m_requested.store(true);
        }
    });
    pthread_setname_np(m_waiter.native_handle(), "stop-signals");
}

StopSignals::~StopSignals()
{
    // The signals stay blocked: one arriving from here to exit is dropped with the process.
    m_closing.store(true);
    pthread_kill(m_waiter.native_handle(), SIGTERM);
    m_waiter.join();
}

} // namespace strata::cli
