#include "app/metrics/worker_heatmap.h"

#include "app/metrics/job_roles.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::app {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The series that make a worker's own time: its step time less the gradient reduction, or
// (an engine reporting no step time) its compute time and input wait.
struct OwnTime {
    const Series* whole;
    const Series* part;
    double sign;
    bool stepTimes;
};

OwnTime ownTime(const TaskData& task)
{
    if (!task.stepMs.empty())
        return {&task.stepMs, &task.commMs, -1, true};
    return {&task.computeMs, &task.inputMs, 1, false};
}
} // namespace

int HeatmapGrid::columnOf(double x) const
{
    if (columns < 1 || !(x >= x0) || !(x < x1))
        return -1;
    // The quotient, corrected where rounding put it on the wrong side of a column's start.
    int column = std::clamp(int((x - x0) / width()), 0, columns - 1);
    if (x < columnStart(column))
        --column;
    else if (x >= columnStart(column + 1))
        ++column;
    return column;
}

void WorkerHeatmap::Sums::extend(const Series& series)
{
    for (int64_t block = int64_t(sum.size()) - 1; (block + 1) * kBlock <= series.size(); ++block) {
        double s = 0;
        int64_t n = 0;
        for (int64_t i = block * kBlock; i < (block + 1) * kBlock; ++i)
            if (const float y = series.y(i); !std::isnan(y)) {
                s += double(y);
                ++n;
            }
        sum.push_back(sum.back() + s);
        count.push_back(count.back() + n);
    }
}

double WorkerHeatmap::Sums::mean(const Series& series, int64_t begin, int64_t end) const
{
    double s = 0;
    int64_t n = 0;
    const auto scan = [&](int64_t from, int64_t to) {
        for (int64_t i = from; i < to; ++i)
            if (const float y = series.y(i); !std::isnan(y)) {
                s += double(y);
                ++n;
            }
    };
    const int64_t first = (begin + kBlock - 1) / kBlock, last = end / kBlock; // whole blocks [first, last)
    if (first >= last) {
        scan(begin, end);
    } else {
        scan(begin, first * kBlock);
        scan(last * kBlock, end);
        s += sum[size_t(last)] - sum[size_t(first)];
        n += count[size_t(last)] - count[size_t(first)];
    }
    return n > 0 ? s / double(n) : kNaN;
}

int WorkerHeatmap::workerCount() const
{
    int count = 0;
    m_store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        count = int(computingTasks(tasks).size());
    });
    return count;
}

std::pair<double, double> WorkerHeatmap::stepRange() const
{
    double first = std::numeric_limits<double>::infinity(), last = -first;
    m_store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        for (const TaskData* t : computingTasks(tasks))
            if (const Series& s = *ownTime(*t).whole; !s.empty()) {
                first = std::min(first, s.x(0));
                last = std::max(last, s.lastX());
            }
    });
    return last >= first ? std::pair(first, last) : std::pair(0.0, -1.0);
}

int WorkerHeatmap::fillRow(const TaskData& task, int row, int from) const
{
    HeatmapGrid& grid = m_grid;
    const OwnTime own = ownTime(task);
    const int kind = own.stepTimes ? 0 : 2;
    Sums& wholeSums = m_sums[{task.task, kind}];
    Sums& partSums = m_sums[{task.task, kind + 1}];
    wholeSums.extend(*own.whole);
    partSums.extend(*own.part);
    const double start = grid.columnStart(from);
    int64_t wholeAt = own.whole->lowerBound(start), partAt = own.part->lowerBound(start);
    float* cells = grid.ms.data() + size_t(row) * size_t(grid.columns);
    for (int c = from; c < grid.columns; ++c) {
        const double end = grid.columnStart(c + 1);
        const int64_t wholeEnd = own.whole->lowerBound(end), partEnd = own.part->lowerBound(end);
        const double whole = wholeSums.mean(*own.whole, wholeAt, wholeEnd);
        const double part = partSums.mean(*own.part, partAt, partEnd);
        cells[c] = float(whole + own.sign * (std::isnan(part) ? 0 : part));
        wholeAt = wholeEnd;
        partAt = partEnd;
    }
    // Later steps may still fall in the column of the last one.
    return own.whole->empty() ? from : std::max(from, grid.columnOf(own.whole->lastX()));
}

void WorkerHeatmap::fillMedians(int from) const
{
    HeatmapGrid& grid = m_grid;
    grid.medianMs.resize(size_t(grid.columns), float(kNaN));
    std::vector<float> column;
    for (int c = std::max(from, 0); c < grid.columns; ++c) {
        column.clear();
        for (int r = 0; r < int(grid.rows.size()); ++r)
            if (const float v = grid.at(r, c); !std::isnan(v))
                column.push_back(v);
        grid.medianMs[size_t(c)] = float(kNaN);
        if (column.empty())
            continue;
        const auto middle = column.begin() + std::ptrdiff_t(column.size() / 2);
        std::nth_element(column.begin(), middle, column.end());
        grid.medianMs[size_t(c)] = column.size() % 2 ? *middle : (*middle + *std::max_element(column.begin(), middle)) / 2;
    }
}

const HeatmapGrid& WorkerHeatmap::grid(double x0, double x1, int columns) const
{
    columns = x1 > x0 ? int(std::clamp(std::ceil(x1 - x0), 0.0, double(std::max(columns, 0)))) : 0;
    // Counted before the lock: what arrives meanwhile is read at the next call.
    const uint64_t generation = m_store.generation();
    const int64_t events = m_store.eventCount(), records = m_store.recordCount();
    const bool sameColumns = generation == m_generation && m_grid.x0 == x0 && m_grid.x1 == x1 && m_grid.columns == columns;
    if (sameColumns && events == m_events && records == m_records)
        return m_grid;
    if (generation != m_generation) {
        m_sums.clear(); // a new run's
        m_generation = generation;
    }
    m_events = events;
    m_records = records;
    m_store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        std::vector<const TaskData*> workers = computingTasks(tasks);
        std::stable_sort(workers.begin(), workers.end(), [](const TaskData* a, const TaskData* b) {
            const QString typeA = a->task.section(':', 0, 0), typeB = b->task.section(':', 0, 0);
            return typeA != typeB ? typeA < typeB : a->task.section(':', 1).toInt() < b->task.section(':', 1).toInt();
        });
        QStringList rows;
        for (const TaskData* w : workers)
            rows << w->task;
        if (!sameColumns || rows != m_grid.rows) {
            // Other columns, or other rows: made whole again.
            m_grid = HeatmapGrid{rows, x0, x1, columns, {}, {}};
            m_grid.ms.assign(size_t(rows.size()) * size_t(columns), float(kNaN));
            m_rowFrom.assign(size_t(rows.size()), 0);
        }
        int from = columns;
        for (size_t r = 0; r < workers.size(); ++r) {
            from = std::min(from, m_rowFrom[r]);
            m_rowFrom[r] = fillRow(*workers[r], int(r), m_rowFrom[r]);
        }
        fillMedians(from);
    });
    return m_grid;
}

} // namespace strata::app
