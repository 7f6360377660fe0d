#pragma once
// cluster.stop_unattended_seconds: a task stops itself (exactly as on SIGTERM) once no app
// has been attached to it for that many seconds in a row. Attached means a follower
// (`strata-engine attach`, or `start` itself) holds the task's attach lock shared; a thread
// tries to take it exclusively about once a second, and lets go at once.

#include "stop_signals.h"

#include "strata/report/event_sink.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace strata::cli {

class UnattendedStop {
public:
    UnattendedStop(std::string attachLock, int64_t seconds, StopSignals& stop, run::EventSink& events);
    ~UnattendedStop();
    UnattendedStop(const UnattendedStop&) = delete;
    UnattendedStop& operator=(const UnattendedStop&) = delete;

private:
    bool attached() const;
    void watch();

    std::string m_lockPath;
    int64_t m_seconds;
    StopSignals& m_stop;
    run::EventSink& m_events;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_closing = false;
    std::thread m_thread;
};

} // namespace strata::cli
