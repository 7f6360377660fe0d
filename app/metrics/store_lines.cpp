#include "app/metrics/store_lines.h"

#include "app/metrics/epoch_lines.h"
#include "app/metrics/job_roles.h"
#include "app/metrics/task_roles.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::app {

void SeriesLines::setSmoothing(const Smoothing& smoothing)
{
    if (smoothing == m_smoothing)
        return;
    m_smoothing = smoothing;
    m_smoothed.clear();
    ++m_smoothingChanges;
}

void SeriesLines::setXAxis(XAxis axis)
{
    if (axis == m_xAxis)
        return;
    m_xAxis = axis;
    m_timed.clear();
    ++m_smoothingChanges; // every point moved
}

uint64_t SeriesLines::revision() const
{
    // Both only ever grow: distinct pairs give distinct values for any run of this program.
    return (dataGeneration() << 24) + m_smoothingChanges;
}

SeriesLines::Line taskLine(const TaskData& task, const QString& name, const Series& series)
{
    return {name, &series, true, &task.wallSeconds, task.firstEventTime};
}

namespace {
// Seconds since the clock's origin at `step`: interpolated between the clock's points (from 0 at
// step 0 before its first); NaN past its last point (not known yet).
double clockAt(const Series& clock, double step)
{
    if (clock.empty() || step > clock.lastX())
        return std::numeric_limits<double>::quiet_NaN();
    const int64_t i = clock.lowerBound(step);
    const double x1 = clock.x(i), y1 = clock.y(i);
    const double x0 = i > 0 ? clock.x(i - 1) : 0, y0 = i > 0 ? clock.y(i - 1) : 0;
    return x1 > x0 ? y0 + (y1 - y0) * (step - x0) / (x1 - x0) : y1;
}

const Series& noPoints()
{
    static const Series none;
    return none;
}
} // namespace

const Series& SeriesLines::timed(const Line& line, const Series& series, bool smooth, double start) const
{
    Timed& t = m_timed[{line.name, smooth}];
    if (t.start != start) {
        t = Timed();
        t.start = start;
    }
    const double shift = m_xAxis == XAxis::WallTime ? line.origin : line.origin - start;
    // Only the new points, and only those the clock reaches yet.
    for (int64_t i = t.series.size(); i < series.size(); ++i) {
        const double seconds = clockAt(*line.clock, series.x(i));
        if (!std::isfinite(seconds))
            break;
        t.series.append(shift + seconds, series.y(i));
    }
    return t.series;
}

void SeriesLines::withLines(bool smooth, const std::function<void(const std::vector<Line>&)>& use) const
{
    const uint64_t generation = dataGeneration();
    if (generation != m_generation) {
        m_smoothed.clear();
        m_timed.clear();
        m_generation = generation;
    }
    readLines([&](const std::vector<Line>& lines) {
        const bool smoothing = smooth && m_smoothing.kind != Smoothing::Kind::None;
        const bool timedX = m_xAxis != XAxis::Step;
        if (!smoothing && !timedX) {
            use(lines);
            return;
        }
        double start = std::numeric_limits<double>::infinity(); // the run's first event
        for (const Line& line : lines)
            if (line.clock && line.origin > 0)
                start = std::min(start, line.origin);
        if (!std::isfinite(start))
            start = 0;
        std::vector<Line> drawn = lines;
        for (Line& line : drawn) {
            const bool smoothedLine = smoothing && line.smoothed;
            if (smoothedLine)
                line.series = &smoothed(line);
            if (timedX)
                line.series = line.clock ? &timed(line, *line.series, smoothedLine, start) : &noPoints();
        }
        use(drawn);
    });
}

const Series& SeriesLines::smoothed(const Line& line) const
{
    Series& out = m_smoothed[line.name];
    smoothSeries(*line.series, m_smoothing, out);
    return out;
}

void smoothSeries(const Series& in, const Smoothing& smoothing, Series& out)
{
    // Every kind continues from out.size(): only new points cost anything.
    switch (smoothing.kind) {
    case Smoothing::Kind::Ema:
        smoothEma(in, smoothing.weight, out);
        return;
    case Smoothing::Kind::MovingAverage:
        smoothMovingAverage(in, smoothing.window, out);
        return;
    case Smoothing::Kind::None:
        for (int64_t i = out.size(); i < in.size(); ++i)
            out.append(in.x(i), in.y(i));
        return;
    }
}

int SeriesLines::lineCount() const
{
    int count = 0;
    withLines(false, [&](const std::vector<Line>& lines) { count = int(lines.size()); });
    return count;
}

QString SeriesLines::lineName(int line) const
{
    QString name;
    withLines(false, [&](const std::vector<Line>& lines) {
        if (line >= 0 && size_t(line) < lines.size())
            name = lines[size_t(line)].name;
    });
    return name;
}

int64_t SeriesLines::pointCount(int line) const
{
    int64_t count = 0;
    withLines(false, [&](const std::vector<Line>& lines) {
        if (line >= 0 && size_t(line) < lines.size())
            count = lines[size_t(line)].series->size();
    });
    return count;
}

QRectF SeriesLines::bounds() const
{
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    const auto extend = [&](const std::vector<Line>& lines) {
        for (const Line& line : lines) {
            const Series& s = *line.series;
            if (s.empty())
                continue;
            x0 = std::min(x0, s.x(0));
            x1 = std::max(x1, s.lastX());
            const auto [lo, hi] = s.yRange();
            if (std::isfinite(lo) && std::isfinite(hi)) {
                y0 = std::min(y0, double(lo));
                y1 = std::max(y1, double(hi));
            }
        }
    };
    withLines(true, extend);
    // The raw values drawn beneath smoothed lines are in view too.
    if (m_smoothing.kind != Smoothing::Kind::None)
        withLines(false, extend);
    if (!(x1 >= x0) || !(y1 >= y0))
        return {};
    return QRectF(QPointF(x0, y0), QPointF(x1, y1));
}

bool SeriesLines::decimated(int line, double x0, double x1, int columns, Series::Reduction& reduction) const
{
    return reduce(true, line, x0, x1, columns, reduction);
}

bool SeriesLines::rawDecimated(int line, double x0, double x1, int columns, Series::Reduction& reduction) const
{
    if (m_smoothing.kind == Smoothing::Kind::None)
        return PlotSource::rawDecimated(line, x0, x1, columns, reduction);
    return reduce(false, line, x0, x1, columns, reduction);
}

bool SeriesLines::reduce(bool smooth, int line, double x0, double x1, int columns, Series::Reduction& reduction) const
{
    bool changed = false;
    withLines(smooth, [&](const std::vector<Line>& lines) {
        // A line never smoothed has no raw values to draw beneath it.
        if (line >= 0 && size_t(line) < lines.size() && (smooth || lines[size_t(line)].smoothed)) {
            changed = lines[size_t(line)].series->decimate(x0, x1, columns, reduction);
        } else {
            changed = !reduction.points.isEmpty();
            reduction = {};
        }
    });
    return changed;
}

LineLook SeriesLines::look(int line) const
{
    LineLook look{LineLook::Role::Line, line, -1};
    withLines(false, [&](const std::vector<Line>& lines) {
        int colour = -1, median = -1;
        for (int i = 0; i <= line && size_t(i) < lines.size(); ++i) {
            const LineLook::Role role = lines[size_t(i)].role;
            const bool edge = role == LineLook::Role::BandLow || role == LineLook::Role::BandHigh;
            if (!edge || median < 0)
                ++colour; // a band's edges take its median's colour
            if (role == LineLook::Role::BandMedian)
                median = i;
            if (i == line)
                look = {role, colour, edge ? median : -1};
        }
    });
    return look;
}

void SeriesLines::forEachPoint(int line, const std::function<void(double x, double y)>& visit) const
{
    withLines(true, [&](const std::vector<Line>& lines) {
        if (line < 0 || size_t(line) >= lines.size())
            return;
        const Series& s = *lines[size_t(line)].series;
        for (int64_t i = 0; i < s.size(); ++i)
            visit(s.x(i), double(s.y(i)));
    });
}

namespace {
// Whether lines are named by task: more than one task computes (an evaluator draws no replicas).
bool severalTraining(const std::vector<TaskData>& tasks) { return computingTasks(tasks).size() > 1; }
} // namespace

void ReplicaLossLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    const bool several = severalTraining(tasks);
    std::vector<Member> replicas;
    for (const TaskData& t : tasks) {
        if (t.replicas.empty()) {
            // An engine that does not report replicas: its task's loss is the one line.
            if (!t.loss.empty())
                replicas.push_back(member(t, t.task, t.loss, recentMean(t.loss)));
            continue;
        }
        for (const ReplicaData& r : t.replicas) {
            QString name = QStringLiteral("%1replica %2").arg(several ? t.task + ' ' : QString()).arg(r.replica);
            if (!r.device.isEmpty())
                name += QStringLiteral(" (%1)").arg(r.device);
            replicas.push_back(member(t, name, r.loss, recentMean(r.loss)));
        }
    }
    appendMany({}, QStringLiteral("replicas"), replicas, true, QStringLiteral("highest"), out);
    m_validation.append(tasks, generation(), out);
}

void ThroughputLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    const std::vector<const TaskData*> training = computingTasks(tasks);
    std::vector<Member> workers;
    for (const TaskData* t : training)
        workers.push_back(member(*t, t->task, t->samplesPerSec, recentOwnMs(*t)));
    appendMany({}, QStringLiteral("workers"), workers, true, QStringLiteral("slowest"), out);
    // The job's total, many times a worker's, would flatten their band: the headline has it (and
    // every line, the band switched off, brings it back).
    if (banded(training.size()))
        return;
    // A ParameterServer job's total is its coordinator's, even with one worker.
    if (training.size() < 2 && !isCoordinatedJob(tasks))
        return;
    if (generation() != m_totalGeneration) {
        m_total = Series();
        m_totalGeneration = generation();
    }
    extendTotalThroughput(tasks, m_total);
    // Summed at the first task's steps: its clock.
    const std::vector<const TaskData*> summed = throughputTasks(tasks);
    out.push_back(summed.empty() ? Line{QStringLiteral("total"), &m_total} : taskLine(*summed.front(), QStringLiteral("total"), m_total));
}

void extendTotalThroughput(const std::vector<TaskData>& all, Series& total)
{
    const std::vector<const TaskData*> tasks = throughputTasks(all);
    if (tasks.empty())
        return;
    const double inf = std::numeric_limits<double>::infinity();
    double complete = inf;
    for (const TaskData* t : tasks)
        complete = std::min(complete, t->samplesPerSec.empty() ? -inf : t->samplesPerSec.lastX());
    const Series& first = tasks.front()->samplesPerSec;
    for (int64_t i = total.empty() ? 0 : first.lowerBound(std::nextafter(total.lastX(), inf));
         i < first.size() && first.x(i) <= complete; ++i) {
        const double x = first.x(i);
        double sum = 0;
        for (const TaskData* t : tasks) {
            // The task's latest window at or before x.
            const Series& s = t->samplesPerSec;
            int64_t at = s.lowerBound(x);
            if (at == s.size() || s.x(at) > x)
                --at;
            if (at >= 0)
                sum += double(s.y(at));
        }
        total.append(x, float(sum));
    }
}

void StepTimeLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    const std::vector<const TaskData*> training = computingTasks(tasks);
    const bool several = training.size() > 1;
    const std::pair<QString, Series TaskData::*> parts[] = {{QStringLiteral("compute"), &TaskData::computeMs},
                                                            {QStringLiteral("gradient reduction"), &TaskData::commMs},
                                                            {QStringLiteral("input wait"), &TaskData::inputMs}};
    if (!banded(training.size())) {
        // Task by task, its split together.
        for (const TaskData* t : training)
            for (const auto& [part, series] : parts)
                out.push_back(taskLine(*t, several ? t->task + ' ' + part : part, t->*series));
        return;
    }
    // A band of each part; the slowest workers' compute, where they lose their time.
    for (const auto& [part, series] : parts) {
        std::vector<Member> workers;
        for (const TaskData* t : training)
            workers.push_back(member(*t, t->task + ' ' + part, t->*series, recentOwnMs(*t)));
        appendMany(part + QStringLiteral(": "), QStringLiteral("workers"), workers, series == &TaskData::computeMs,
                   QStringLiteral("slowest"), out);
    }
}

void EvaluationLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    // x is the evaluated checkpoint's step: the chief's clock.
    const TaskData* chief = nullptr;
    for (const TaskData& t : tasks)
        chief = !chief && isChiefTask(t.task) ? &t : chief;
    for (const TaskData& t : tasks)
        for (const auto& [metric, series] : t.evaluation)
            out.push_back(taskLine(chief ? *chief : t, t.task + ' ' + metric, series));
}

void DeviceUtilizationLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    const bool several = tasks.size() > 1;
    std::vector<Member> devices;
    for (const TaskData& t : tasks)
        for (const DeviceData& d : t.devices)
            devices.push_back(member(t, several ? t.task + ' ' + d.device : d.device, d.utilization, recentOwnMs(t)));
    appendMany({}, QStringLiteral("devices"), devices, true, QStringLiteral("slowest"), out);
}

void DeviceMemoryLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    const bool several = tasks.size() > 1;
    std::vector<Member> variables, processes;
    std::vector<Line> byTask; // task by task: its devices, then its process
    for (const TaskData& t : tasks) {
        const QString prefix = several ? t.task + ' ' : QString();
        for (const DeviceData& d : t.devices) {
            variables.push_back(member(t, prefix + d.device + QStringLiteral(" variables"), d.variableBytes, 0));
            byTask.push_back(variables.back().line);
        }
        if (!t.rssBytes.empty()) {
            processes.push_back(member(t, prefix + QStringLiteral("process (resident)"), t.rssBytes, t.rssBytes.lastY()));
            byTask.push_back(processes.back().line);
        }
    }
    if (!banded(std::max(variables.size(), processes.size()))) {
        out.insert(out.end(), byTask.begin(), byTask.end());
        return;
    }
    appendMany(QStringLiteral("variables: "), QStringLiteral("devices"), variables, false, {}, out);
    appendMany(QStringLiteral("resident: "), QStringLiteral("processes"), processes, true, QStringLiteral("largest"), out);
}

void StalenessLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    for (const TaskData* t : computingTasks(tasks)) {
        if (!t->stalenessMean.empty())
            out.push_back(taskLine(*t, t->task + QStringLiteral(" mean"), t->stalenessMean));
        if (!t->stalenessMax.empty())
            out.push_back(taskLine(*t, t->task + QStringLiteral(" max"), t->stalenessMax));
    }
}

void ParameterServerTrafficLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    for (const TaskData& t : tasks)
        if (!t.bytesInPerSec.empty() || !t.bytesOutPerSec.empty()) {
            out.push_back({t.task + QStringLiteral(" in (pushes)"), &t.bytesInPerSec});
            out.push_back({t.task + QStringLiteral(" out (pulls)"), &t.bytesOutPerSec});
        }
}

void ParameterServerUpdatesLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    for (const TaskData& t : tasks)
        if (!t.updatesPerSec.empty())
            out.push_back({t.task, &t.updatesPerSec});
}

} // namespace strata::app
