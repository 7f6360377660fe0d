#pragma once
// The dashboard's lines, read from a MetricsStore: which series a plot shows (every replica's
// loss, each worker's throughput and the total, the step time split, each device's
// utilization and memory, an evaluator's metrics), their names, and their points reduced for
// drawing. Lines of several tasks are named by task ("worker:1 replica 0 (cpu:0)": device
// names repeat on every worker). Smoothing
// (TensorBoard's debiased EMA, or a moving average) is computed over every point, and kept
// incrementally so that each refresh only smooths what arrived since the last one.
//
// Threads: call from the store's thread (the UI thread); every read takes the store's lock.

#include "app/metrics/line_band.h"
#include "app/metrics/metrics_store.h"

#include <QPointF>
#include <QRectF>
#include <QString>
#include <QVector>

#include <functional>
#include <map>
#include <vector>

namespace strata::app {

// How a plot draws a line. Most lines are lines of their own, each in its colour; a band
// (line_band.h) is three lines: its median, drawn as a line, and its least and greatest values,
// drawn as a faint fill between them in the median's colour (no legend entry of their own).
struct LineLook {
    enum class Role { Line, BandMedian, BandLow, BandHigh };
    Role role = Role::Line;
    int colour = 0; // which of the palette's line colours (ui::theme::series)
    int band = -1;  // BandLow and BandHigh: the line index of their band's median
    bool operator==(const LineLook&) const = default;
};

// What a plot draws: lines of (x, y) points in x order. ui::SeriesPlot reads one.
class PlotSource {
public:
    virtual ~PlotSource() = default;
    virtual int lineCount() const = 0;
    virtual QString lineName(int line) const = 0;
    virtual int64_t pointCount(int line) const = 0;
    // The extent of every line's points (for "reset view"); an empty rect when no data.
    virtual QRectF bounds() const = 0;
    // Line `line`'s points in [x0, x1] reduced for `columns` pixel columns, kept up to date in
    // `reduction` (Series::decimate: after the line grew, only its new part is reduced). False
    // when the reduction did not change. A line that does not exist has no points.
    virtual bool decimated(int line, double x0, double x1, int columns, Series::Reduction& reduction) const = 0;
    // While the lines are smoothed: line `line` as reported, reduced as decimated() does (drawn
    // faintly beneath the smoothed line, TensorBoard's habit); empty when not smoothed.
    virtual bool rawDecimated(int line, double x0, double x1, int columns, Series::Reduction& reduction) const
    {
        (void)line, (void)x0, (void)x1, (void)columns;
        const bool changed = !reduction.points.isEmpty();
        reduction = {};
        return changed;
    }
    // Every point of the line, in order (CSV export).
    virtual void forEachPoint(int line, const std::function<void(double x, double y)>& visit) const = 0;
    // How line `line` is drawn (by default a line of its own in colour `line`).
    virtual LineLook look(int line) const { return {LineLook::Role::Line, line, -1}; }
    // Changes whenever points already given may have changed (the data replaced, the
    // smoothing changed); lines that only grow keep it, so that a plot may keep a line's
    // reduction while neither the line nor the view changed.
    virtual uint64_t revision() const = 0;
};

struct Smoothing {
    enum class Kind { None, Ema, MovingAverage };
    Kind kind = Kind::None;
    double weight = 0.6; // EMA, as TensorBoard's slider (0: none)
    int window = 10;     // moving average, in points
    bool operator==(const Smoothing&) const = default;
};

// `in` smoothed as `smoothing` says (None: as it is), appended to `out` from index out.size()
// on, so that calls as `in` grows cost only the new points.
void smoothSeries(const Series& in, const Smoothing& smoothing, Series& out);

// What a step plot's x counts (TensorBoard's STEP, RELATIVE and WALL): the step, seconds since the
// run began (its first task's first event), or the time of day (unix seconds).
enum class XAxis { Step, RelativeSeconds, WallTime };

// A PlotSource over series held elsewhere (by one MetricsStore, or several), with smoothing.
// Subclasses say which series make the lines; the lines are looked up again on every call,
// since the stores grow while runs go on.
class SeriesLines : public PlotSource {
public:
    // Applies to every line (a derived one, the total throughput, is summed before smoothing).
    void setSmoothing(const Smoothing& smoothing);
    const Smoothing& smoothing() const { return m_smoothing; }
    // Lines whose x is a step may be drawn against time instead, through their task's clock (its
    // step events' wall time); a line without one has no points then.
    void setXAxis(XAxis axis);
    XAxis xAxis() const { return m_xAxis; }

    int lineCount() const override;
    QString lineName(int line) const override;
    int64_t pointCount(int line) const override;
    QRectF bounds() const override;
    bool decimated(int line, double x0, double x1, int columns, Series::Reduction& reduction) const override;
    bool rawDecimated(int line, double x0, double x1, int columns, Series::Reduction& reduction) const override;
    void forEachPoint(int line, const std::function<void(double x, double y)>& visit) const override;
    // Colours in line order, a band's three lines sharing one (they come median, low, high).
    LineLook look(int line) const override;
    uint64_t revision() const override;

    struct Line {
        QString name; // unique among the lines: smoothed copies are kept by name
        const Series* series = nullptr;
        bool smoothed = true; // false: drawn as it is whatever the smoothing (an epoch's validation)
        // When x is a step: the time of each step, x: step, y: seconds since `origin` (unix
        // seconds; the task's first event). Null: the line has no place on a time axis.
        const Series* clock = nullptr;
        double origin = 0;
        LineLook::Role role = LineLook::Role::Line;
    };

protected:
    // Changes whenever the data behind the lines is replaced (a store cleared for a new run).
    virtual uint64_t dataGeneration() const = 0;
    // Calls `use` with the lines, in a stable order, while their series are locked.
    virtual void readLines(const std::function<void(const std::vector<Line>&)>& use) const = 0;
    // The dataGeneration() the current readLines() belongs to.
    uint64_t generation() const { return m_generation; }
    // The lines drawn are others now (points already given changed: revision() changes).
    void linesReplaced() { ++m_smoothingChanges; }

private:
    // Runs `use` on the lines; `smooth`: as they will be drawn.
    void withLines(bool smooth, const std::function<void(const std::vector<Line>&)>& use) const;
    const Series& smoothed(const Line& line) const;
    // `series` (line `line`'s, smoothed or not) against time; `start`: the run's beginning.
    const Series& timed(const Line& line, const Series& series, bool smooth, double start) const;
    // Line `line` (smoothed or raw) reduced into `reduction`.
    bool reduce(bool smooth, int line, double x0, double x1, int columns, Series::Reduction& reduction) const;

    Smoothing m_smoothing;
    uint64_t m_smoothingChanges = 0;
    XAxis m_xAxis = XAxis::Step;
    // Smoothed copies by line name, valid for the generation they were made in.
    mutable std::map<QString, Series> m_smoothed;
    // Copies against time by line name (and whether smoothed), for the start they were made from.
    struct Timed {
        Series series;
        double start = 0;
    };
    mutable std::map<std::pair<QString, bool>, Timed> m_timed;
    mutable uint64_t m_generation = 0;
};

// A line of `task` whose x is the task's step.
SeriesLines::Line taskLine(const TaskData& task, const QString& name, const Series& series);

// The lines of one MetricsStore: subclasses pick them from its tasks. Where a job has many
// lines of one kind (more than kBandAboveLines: 64 workers' throughput), they are drawn as their
// band with the few that stand out (line_band.h), unless the bands are switched off.
class StoreLines : public SeriesLines {
public:
    explicit StoreLines(const MetricsStore& store) : m_store(store) {}

    // Bands for many lines of one kind (the default), or every line.
    void setBands(bool shown);
    bool bands() const { return m_bands; }
    // Whether the lines now have a kind many enough for a band (shown or not).
    bool hasManyLines() const;

protected:
    // The lines, in a stable order, for the store's current contents (called under its lock).
    virtual void collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const = 0;

    // One of many lines of a kind: a task's, or a replica's. `score`: how much it stands out.
    struct Member {
        Line line;
        bool reporting = true; // its task may still report (the band waits for it)
        double score = 0;
    };
    // Whether `count` lines of a kind are drawn as a band (noting that the lines have many).
    bool banded(size_t count) const;
    // `members` as lines of their own; or, when banded(), their band (its median named
    // "`kind`median of N `what`", its least and greatest "`kind`min ...", "`kind`max ...") and
    // the kStandOutLines members of greatest score (`standOut` true for a kind that has them),
    // named "`label`: <member>" and drawn after it.
    void appendMany(const QString& kind, const QString& what, const std::vector<Member>& members, bool standOut,
                    const QString& label, std::vector<Line>& out) const;
    // A member of `task` whose band waits while the task runs.
    static Member member(const TaskData& task, const QString& name, const Series& series, double score);

private:
    uint64_t dataGeneration() const final { return m_store.generation(); }
    void readLines(const std::function<void(const std::vector<Line>&)>& use) const final;

    const MetricsStore& m_store;
    bool m_bands = true;
    // The lines of the last collect(), kept while the store holds the same (a plot reads its
    // lines many times a refresh; with 64 workers, collecting them is most of its cost): for
    // the events and records it had taken, the bands choice, and the shape of its tasks (where
    // the series live: a task's replicas moving would leave the lines pointing nowhere; and
    // their states, which a band waits on).
    struct Collected {
        uint64_t generation = 0;
        int64_t events = -1, records = -1;
        bool bands = true;
        size_t shape = 0;
        bool operator==(const Collected&) const = default;
    };
    mutable Collected m_collected;
    mutable std::vector<Line> m_lines;
    mutable bool m_manyLines = false; // as of the last collect()
    // Each band by its kind, for the generation it was made in.
    mutable std::map<QString, LineBand> m_bandsMade;
    mutable uint64_t m_bandGeneration = 0;
};

// Extends `total` with the samples/s of the tasks that make the job's (job_roles.h: chief
// and workers, an evaluator training nothing; a ParameterServer job's coordinator) summed,
// at the first one's steps, up to where every one has reported (a sum
// made before a slower task's window arrived would be too low, and never corrected).
// Continues from total's last point; reset it for a new run.
void extendTotalThroughput(const std::vector<TaskData>& tasks, Series& total);

// One metric of each epoch's `train` or `validation` part as a series (x: the epoch's last
// step), extended as epochs arrive.
class EpochSeries {
public:
    // `part`: "train" or "validation"; `metric`: "loss", "accuracy", ...
    void extend(const std::vector<EpochRecord>& epochs, const char* part, const std::string& metric);
    const Series& series() const { return m_series; }

private:
    Series m_series;
    size_t m_read = 0; // epochs read
};

// The line of one validation metric per epoch ("validation loss"), from the first task whose
// epochs report validation (epoch_lines.cpp), kept from one read to the next and forgotten with
// the store's data.
class ValidationLine {
public:
    ValidationLine(QString metric, QString name) : m_metric(std::move(metric)), m_name(std::move(name)) {}
    // Under the store's lock; `generation`: the store's (a new run forgets the series).
    void append(const std::vector<TaskData>& tasks, uint64_t generation, std::vector<SeriesLines::Line>& out);
    void setMetric(const QString& metric, const QString& name);

private:
    QString m_metric, m_name;
    std::map<QString, EpochSeries> m_series; // by task and metric
    uint64_t m_generation = 0;
};

// Each replica's loss (every task's replicas): "replica 1 (cpu:1)", "worker:1 replica 0 (cpu:0)"
// when there are several tasks (as every class here names lines), or of many replicas their band
// and the highest lately; then the validation loss of each epoch ("validation loss", epoch_lines.h).
class ReplicaLossLines final : public StoreLines {
public:
    using StoreLines::StoreLines;

protected:
    void collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const override;

private:
    mutable ValidationLine m_validation{QStringLiteral("loss"), QStringLiteral("validation loss")};
};

// Samples per second of each training task, and their total when there is more than one (a
// ParameterServer job's: each worker's, and the coordinator's for the job); of many workers,
// their band and the slowest (by recentOwnMs), without the total.
class ThroughputLines final : public StoreLines {
public:
    using StoreLines::StoreLines;

protected:
    void collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const override;

private:
    // The total, summed at the first task's steps, extended as the run goes on.
    mutable Series m_total;
    mutable uint64_t m_totalGeneration = 0;
};

// Where a step's time goes: compute, gradient reduction, input wait (per training task when
// several; of many workers, a band of each, and the slowest workers' compute).
class StepTimeLines final : public StoreLines {
public:
    using StoreLines::StoreLines;

protected:
    void collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const override;
};

// An evaluator's evaluations of the chief's checkpoints: one line per task and metric
// ("evaluator:0 loss", "evaluator:0 accuracy"), x the checkpoint's step.
class EvaluationLines final : public StoreLines {
public:
    using StoreLines::StoreLines;

protected:
    void collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const override;
};

// How busy each device is (0..1); of many, their band and the slowest workers' devices.
class DeviceUtilizationLines final : public StoreLines {
public:
    using StoreLines::StoreLines;

protected:
    void collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const override;
};

// Bytes of variables on each device, and each engine process's resident memory; of many, a band
// of each and the largest processes.
class DeviceMemoryLines final : public StoreLines {
public:
    using StoreLines::StoreLines;

protected:
    void collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const override;
};

// ParameterServer: how stale each worker's gradients were (steps the variables moved on
// between its pull and its push), its window's mean and maximum ("worker:0 mean").
class StalenessLines final : public StoreLines {
public:
    using StoreLines::StoreLines;

protected:
    void collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const override;
};

// ParameterServer: each ps task's traffic in bytes per second, in (the workers' pushes) and out
// (their pulls); x: seconds since the ps task's first event.
class ParameterServerTrafficLines final : public StoreLines {
public:
    using StoreLines::StoreLines;

protected:
    void collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const override;
};

// ParameterServer: the updates each ps task applies per second.
class ParameterServerUpdatesLines final : public StoreLines {
public:
    using StoreLines::StoreLines;

protected:
    void collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const override;
};

} // namespace strata::app
