#include "app/launch/job/ingest_queue.h"

namespace strata::app {

IngestQueue::IngestQueue()
{
    m_thread.setObjectName("strata-ingest");
    m_worker.moveToThread(&m_thread);
    m_thread.start();
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
