#pragma once
// Each training worker's time per step over the run, binned for a heatmap: a row per worker (in
// task order), a column per bin of steps, each cell the mean over the bin's steps of the time the
// worker took on its own (its step time less the gradient reduction, where every worker of a
// synchronous job waits for the slowest: line_band.h's recentOwnMs), with the median of the
// column's cells beside it, so that a view may colour a cell by how far it is from the median
// worker's. Per worker the sums of its step times and gradient reductions over blocks of
// steps are kept and extended as the store grows, so that a grid costs its cells (a binary
// search or two each), not the run's steps; and the last grid is kept, so that asked again for
// the same steps and columns while the run grows, only each row's columns from its last step
// on are made again (a view following the run keeps its columns while it can, as SeriesPlot's
// lines do).
//
// Threads: call from the store's thread (the UI thread); every read takes the store's lock.

#include "app/metrics/metrics_store.h"

#include <QString>
#include <QStringList>

#include <map>
#include <utility>
#include <vector>

namespace strata::app {

struct HeatmapGrid {
    QStringList rows;      // the workers, in task order (by type, then index: worker:2 before worker:10)
    double x0 = 0, x1 = 0; // the steps covered, [x0, x1): column c holds [x0 + c w, x0 + (c + 1) w)
    int columns = 0;
    std::vector<float> ms;       // rows x columns, row by row; NaN: no step of the worker there
    std::vector<float> medianMs; // per column: the median of its cells (NaN: none)

    float at(int row, int column) const { return ms[size_t(row) * size_t(columns) + size_t(column)]; }
    double width() const { return columns > 0 ? (x1 - x0) / columns : 0; }
    // Where column `column` begins (columns: x1).
    double columnStart(int column) const { return column >= columns ? x1 : x0 + column * width(); }
    // The column holding step `x` (-1: none), as columnStart() divides them.
    int columnOf(double x) const;
};

class WorkerHeatmap {
public:
    explicit WorkerHeatmap(const MetricsStore& store) : m_store(store) {}

    // The training workers heard from so far.
    int workerCount() const;
    // The first and last step any worker reported; {0, -1} when none did.
    std::pair<double, double> stepRange() const;
    // Steps [x0, x1) in `columns` columns of equal width (fewer when there are fewer steps: a
    // column holds a step at least). Valid until the next call.
    const HeatmapGrid& grid(double x0, double x1, int columns) const;

private:
    // A series' finite values summed and counted over its whole blocks of kBlock points, from its
    // start up to each block's end (extended as the series grows).
    struct Sums {
        static constexpr int64_t kBlock = 16;
        std::vector<double> sum{0};
        std::vector<int64_t> count{0};
        void extend(const Series& series);
        // The mean of the finite values of points [begin, end); NaN: none.
        double mean(const Series& series, int64_t begin, int64_t end) const;
    };
    // The cells of `row` from column `from` on: `task`'s mean time per step of its own in each.
    // Returns the column of its last step (where the next fill starts).
    int fillRow(const TaskData& task, int row, int from) const;
    // The medians of columns `from` on.
    void fillMedians(int from) const;

    const MetricsStore& m_store;
    // By task and series, for the store generation they were made in.
    mutable std::map<std::pair<QString, int>, Sums> m_sums;
    mutable uint64_t m_generation = 0;
    // The last grid, for the store's events and records it had taken, and for each row the
    // column its next fill starts at.
    mutable HeatmapGrid m_grid;
    mutable int64_t m_events = -1, m_records = -1;
    mutable std::vector<int> m_rowFrom;
};

} // namespace strata::app
