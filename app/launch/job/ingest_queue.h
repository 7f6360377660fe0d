#pragma once
// IngestQueue: a thread of the launcher's own on which what the tasks send is parsed into the
// store, in arrival order, so that the GUI thread only reads the streams.
//
// Threads: post() from the owner's thread; the work runs on the queue's, `then` back on
// `context`'s. Destroying the queue waits for the work running.

#include <QObject>
#include <QThread>

#include <functional>

namespace strata::app {

class IngestQueue {
public:
    IngestQueue();
    ~IngestQueue();
    IngestQueue(const IngestQueue&) = delete;
    IngestQueue& operator=(const IngestQueue&) = delete;

    // Runs `work` after everything posted before it; then, when given, `then` on `context`'s
    // thread (queued).
    void post(std::function<void()> work, QObject* context = nullptr, std::function<void()> then = {});

private:
    QThread m_thread;
    QObject m_worker; // lives in m_thread
};

} // namespace strata::app
