#include "app/launch/job/ingest_queue.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace strata::app {

IngestQueue::IngestQueue()
{
    m_thread.setObjectName("strata-ingest");
    m_worker.moveToThread(&m_thread);
    m_thread.start();
    // A little below the window's thread (Linux: a thread's own nice value): where the cores
    // are busy, a backlog waits for the window rather than the window for the backlog.
    QMetaObject::invokeMethod(&m_worker, [] { ::setpriority(PRIO_PROCESS, id_t(::syscall(SYS_gettid)), 5); },
                              Qt::QueuedConnection);
}

IngestQueue::~IngestQueue()
{
    m_thread.quit();
    m_thread.wait();
}

void IngestQueue::post(std::function<void()> work, QObject* context, std::function<void()> then)
{
    QMetaObject::invokeMethod(&m_worker, [work = std::move(work), context, then = std::move(then)] {
        work();
        if (context && then)
            QMetaObject::invokeMethod(context, then, Qt::QueuedConnection);
    }, Qt::QueuedConnection);
}

} // namespace strata::app
