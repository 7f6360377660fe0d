// MetricsStore's readers: the progress (with the ETA) and the counts.
#include "app/metrics/metrics_store.h"
#include "app/metrics/metrics_store_parts.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::app {

using namespace store_parts;

namespace {

// The ETA's rate is taken over the last second of steps and at least this many points (a
// point per step from step records, per window from live events).
constexpr int kRateWindow = 10;
constexpr double kRateSeconds = 1.0;

template<typename Fn>
void forEachSeries(const TaskData& td, Fn fn)
{
    for (const Series* s : {&td.loss, &td.samplesPerSec, &td.stepMs, &td.computeMs, &td.commMs, &td.inputMs,
                            &td.wallSeconds, &td.rssBytes, &td.stalenessMean, &td.stalenessMax, &td.bytesInPerSec,
                            &td.bytesOutPerSec, &td.updatesPerSec})
        fn(*s);
    for (const auto& [name, s] : td.metrics)
        fn(s);
    for (const auto& [name, s] : td.evaluation)
        fn(s);
    for (const ReplicaData& r : td.replicas) {
        fn(r.loss);
        fn(r.samples);
    }
    for (const DeviceData& d : td.devices) {
        fn(d.utilization);
        fn(d.variableBytes);
    }
}

} // namespace

void MetricsStore::read(
    const std::function<void(const std::vector<TaskData>&, const std::vector<LogEntry>&)>& reader) const
{
    const auto lock = acquire();
    reader(m_tasks, m_log);
}

Progress MetricsStore::progress() const
{
    const auto lock = acquire();
    Progress p;
    if (m_tasks.empty())
        return p;
    double first = std::numeric_limits<double>::infinity(), last = 0;
    bool running = false, allFinished = true;
    for (const TaskData& td : m_tasks) {
        p.step = std::max(p.step, td.step);
        p.totalSteps = std::max(p.totalSteps, td.totalSteps);
        if (td.firstEventTime > 0)
            first = std::min(first, td.firstEventTime);
        last = std::max(last, td.lastEventTime);
        const bool active = !td.exited && (td.state == TaskState::Starting || td.state == TaskState::Running);
        running = running || active;
        allFinished = allFinished && td.state == TaskState::Completed;
        // Remaining steps at the recent rate (wall seconds per step).
        const Series& wall = td.wallSeconds;
        if (active && td.totalSteps > 0 && wall.size() >= 2) {
            const int64_t n = wall.size();
            // The first point within kRateSeconds of the last (wall times do not decrease).
            int64_t from = 0;
            for (int64_t to = n - 1; from < to;) {
                const int64_t mid = from + (to - from) / 2;
                if (double(wall.y(mid)) < double(wall.y(n - 1)) - kRateSeconds)
                    from = mid + 1;
                else
                    to = mid;
            }
            from = std::min(from, std::max<int64_t>(0, n - 1 - kRateWindow));
            const double steps = wall.x(n - 1) - wall.x(from);
            const double seconds = double(wall.y(n - 1)) - double(wall.y(from));
            if (steps > 0 && seconds >= 0) {
                const double eta = double(std::max<int64_t>(0, td.totalSteps - td.step)) * seconds / steps;
                p.etaSeconds = std::max(p.etaSeconds, eta);
            }
        }
    }
    if (allFinished)
        p.etaSeconds = 0;
    if (p.totalSteps > 0)
        p.fraction = std::clamp(double(p.step) / double(p.totalSteps), 0.0, 1.0);
    if (std::isfinite(first))
        p.elapsedSeconds = std::max(0.0, (running ? now() : last) - first);
    return p;
}

uint64_t MetricsStore::generation() const
{
    const auto lock = acquire();
    return m_generation;
}

int64_t MetricsStore::eventCount() const
{
    const auto lock = acquire();
    return m_events;
}

int64_t MetricsStore::recordCount() const
{
    const auto lock = acquire();
    return m_records;
}

int64_t MetricsStore::pointCount() const
{
    const auto lock = acquire();
    int64_t points = 0;
    for (const TaskData& td : m_tasks)
        forEachSeries(td, [&](const Series& s) { points += s.size(); });
    return points;
}

size_t MetricsStore::seriesBytes() const
{
    const auto lock = acquire();
    size_t bytes = 0;
    for (const TaskData& td : m_tasks)
        forEachSeries(td, [&](const Series& s) { bytes += s.memoryBytes(); });
    return bytes;
}

} // namespace strata::app
