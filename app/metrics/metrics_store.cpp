// MetricsStore: ingest (parsed outside the lock, applied under it in slices), the lock, the
// task lookup and the coalesced notifications. Its other parts: metrics_store_*.cpp.
#include "app/metrics/metrics_store.h"
#include "app/metrics/metrics_store_parts.h"
#include "app/metrics/stragglers.h"

#include <QThread>

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <utility>

namespace strata::app {

using namespace store_parts;

namespace {

constexpr int kDefaultNotifyMs = 40;
constexpr int kWarningPrefix = 80; // characters of a bad line quoted in the log
constexpr size_t kLockedItems = 4096; // events and records applied under the lock at a time

} // namespace

MetricsStore::MetricsStore(QObject* parent)
    : QObject(parent), m_stragglers(std::make_unique<StragglerWatch>()), m_notify(this)
{
    m_notify.setSingleShot(true);
    m_notify.setInterval(kDefaultNotifyMs);
    connect(&m_notify, &QTimer::timeout, this, [this] {
        {
            const auto lock = acquire();
            m_pending = false;
        }
        Q_EMIT updated();
    });
}

MetricsStore::~MetricsStore() = default;

void MetricsStore::ingestLines(const QString& task, const QByteArray& lines)
{
    // Parsed outside the lock: it is the expensive part, and readers must not wait for it.
    std::vector<ParsedEvent> events;
    EventParser::forThisThread().parseLines(lines.constData(), size_t(lines.size()), events);
    ingest(task, std::move(events));
}

void MetricsStore::ingest(const QString& task, const Json& event)
{
    std::vector<ParsedEvent> events;
    events.push_back(EventParser::forThisThread().fromJson(event));
    ingest(task, std::move(events));
}

void MetricsStore::ingest(const QString& task, std::vector<ParsedEvent> events)
{
    ingest(task, std::move(events), {});
}

void MetricsStore::ingest(const QString& task, std::vector<ParsedEvent> events, std::vector<ParsedEvent> records)
{
    if (events.empty() && records.empty())
        return;
    {
        auto lock = acquire();
        // A backlog of records (a run followed again, an app that fell behind) is tens of
        // thousands: the readers get the lock between slices of it, told that it grew.
        size_t applied = 0;
        const auto slice = [&] {
            if (++applied % kLockedItems == 0) {
                lock.unlock();
                scheduleNotify();
                // Whoever waits for the lock (the window reading) takes it first: relocking at
                // once would mostly win it back, and the window would wait for the whole backlog.
                while (m_waiting.load(std::memory_order_acquire) > 0)
                    std::this_thread::yield();
                lock.lock();
            }
        };
        size_t next = 0; // the first record not applied
        const auto recordsThrough = [&](int64_t step) {
            for (; next < records.size() && records[next].step.step.value_or(0) <= step; ++next) {
                applyRecord(task, records[next]);
                slice();
            }
        };
        for (const ParsedEvent& event : events) {
            if (event.kind == ParsedEvent::Kind::Step && event.step.step)
                recordsThrough(*event.step.step);
            slice();
            if (event.kind != ParsedEvent::Kind::NotAnEvent) {
                ++m_events;
                apply(task, event);
            } else {
                const QString quoted = QString::fromUtf8(event.line.left(kWarningPrefix));
                m_log.push_back({now(), task, QStringLiteral("warning"),
                                 QStringLiteral("%1: not a JSON event: %2%3")
                                     .arg(task, quoted, event.line.size() > kWarningPrefix ? QStringLiteral("…") : QString())});
                m_logChanged = true;
            }
        }
        recordsThrough(std::numeric_limits<int64_t>::max());
        watchStragglers();
    }
    scheduleNotify();
}

void MetricsStore::watchStragglers()
{
    for (StragglerNews& news : m_stragglers->advance(m_tasks)) {
        m_log.push_back({news.time, news.task, news.recovered ? QStringLiteral("info") : QStringLiteral("warning"),
                         std::move(news.message)});
        m_logChanged = true;
        // Its row in the task table is flagged (or no longer).
        noteStateChange(news.task);
    }
}

std::vector<Straggler> MetricsStore::stragglers() const
{
    const auto lock = acquire();
    return m_stragglers->stragglers();
}

void MetricsStore::noteStateChange(const QString& task)
{
    if (std::find(m_stateChanges.begin(), m_stateChanges.end(), task) == m_stateChanges.end())
        m_stateChanges.push_back(task);
}

TaskData& MetricsStore::taskData(const QString& task)
{
    for (TaskData& td : m_tasks)
        if (td.task == task)
            return td;
    m_tasks.emplace_back();
    m_tasks.back().task = task;
    return m_tasks.back();
}

void MetricsStore::apply(const QString& taskName, const ParsedEvent& event)
{
    const QString name = taskName.isEmpty() ? event.task.value_or(QStringLiteral("?")) : taskName;
    TaskData& td = taskData(name);
    const TaskState stateBefore = td.state;

    const double t = event.t;
    if (std::isfinite(t)) {
        if (td.firstEventTime == 0)
            td.firstEventTime = t;
        td.lastEventTime = std::max(td.lastEventTime, t);
    }
    if (event.kind == ParsedEvent::Kind::Step)
        applyStep(td, event.step, t);
    else
        applyOther(td, name, event);

    if (td.state != stateBefore)
        noteStateChange(name);
}

void MetricsStore::clear()
{
    {
        const auto lock = acquire();
        m_tasks.clear();
        m_log.clear();
        *m_stragglers = {};
        m_events = 0;
        m_records = 0;
        ++m_generation;
        m_stateChanges.clear();
        m_logChanged = true;
    }
    scheduleNotify();
}

std::unique_lock<std::recursive_mutex> MetricsStore::holdForReading() const
{
    return acquire();
}

std::unique_lock<std::recursive_mutex> MetricsStore::acquire() const
{
    ++m_waiting;
    std::unique_lock lock(m_mutex);
    --m_waiting;
    return lock;
}

void MetricsStore::setNotifyInterval(int ms)
{
    m_notify.setInterval(std::max(ms, 0));
}

void MetricsStore::scheduleNotify()
{
    bool post = false;
    {
        const auto lock = acquire();
        const bool urgent = !m_stateChanges.empty() || m_logChanged;
        const bool wasPending = m_pending;
        m_pending = true;
        // One queued deliver() at a time: a producer thread never floods the event queue.
        if (!m_deliveryPosted && (urgent || !wasPending)) {
            m_deliveryPosted = true;
            post = true;
        }
    }
    if (!post)
        return;
    if (QThread::currentThread() == thread())
        deliver();
    else
        QMetaObject::invokeMethod(this, [this] { deliver(); }, Qt::QueuedConnection);
}

void MetricsStore::deliver()
{
    std::vector<QString> changes;
    bool logChanged = false, pending = false;
    {
        const auto lock = acquire();
        m_deliveryPosted = false;
        changes.swap(m_stateChanges);
        logChanged = std::exchange(m_logChanged, false);
        pending = m_pending;
    }
    for (const QString& task : changes)
        Q_EMIT taskStateChanged(task);
    if (logChanged)
        Q_EMIT logAppended();
    if (pending && !m_notify.isActive())
        m_notify.start();
}

} // namespace strata::app
