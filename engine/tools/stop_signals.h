#pragma once
// SIGTERM and SIGINT as a stop request, taken by a thread of their own. The signals are
// blocked in every other thread, so none is interrupted mid-computation: a handler run on a
// thread inside oneDNN's sgemm corrupted the heap now and then (about 1 run in 40 stopped
// by SIGTERM aborted in free()).

#include <atomic>
#include <thread>

namespace strata::cli {

class StopSignals {
public:
    // Blocks the signals in the calling thread, and so in every thread it starts later:
    // construct before any other thread exists.
    StopSignals();
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    // Set once either signal has arrived.
    const std::atomic<bool>* requested() const { return &m_requested; }

private:
    std::atomic<bool> m_requested{false};
    std::atomic<bool> m_closing{false};
    std::thread m_waiter;
};

} // namespace strata::cli
