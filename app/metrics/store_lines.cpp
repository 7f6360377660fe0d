#include "app/metrics/store_lines.h"

#include "app/metrics/job_roles.h"

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

uint64_t SeriesLines::revision() const
{
    // Both only ever grow: distinct pairs give distinct values for any run of this program.
    return (dataGeneration() << 24) + m_smoothingChanges;
}

void SeriesLines::withLines(bool smooth, const std::function<void(const std::vector<Line>&)>& use) const
{
    const uint64_t generation = dataGeneration();
    if (generation != m_generation) {
        m_smoothed.clear();
        m_generation = generation;
    }
    readLines([&](const std::vector<Line>& lines) {
        if (!smooth || m_smoothing.kind == Smoothing::Kind::None) {
            use(lines);
            return;
        }
        std::vector<Line> drawn = lines;
        for (Line& line : drawn)
            line.series = &smoothed(line);
        use(drawn);
    });
}

void StoreLines::readLines(const std::function<void(const std::vector<Line>&)>& use) const
{
    m_store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        std::vector<Line> lines;
        collect(tasks, lines);
        use(lines);
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
    withLines(true, [&](const std::vector<Line>& lines) {
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
    });
    if (!(x1 >= x0) || !(y1 >= y0))
        return {};
    return QRectF(QPointF(x0, y0), QPointF(x1, y1));
}

bool SeriesLines::decimated(int line, double x0, double x1, int columns, Series::Reduction& reduction) const
{
    bool changed = false;
    withLines(true, [&](const std::vector<Line>& lines) {
        if (line >= 0 && size_t(line) < lines.size()) {
            changed = lines[size_t(line)].series->decimate(x0, x1, columns, reduction);
        } else {
            changed = !reduction.points.isEmpty();
            reduction = {};
        }
    });
    return changed;
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
    for (const TaskData& t : tasks) {
        if (t.replicas.empty()) {
            // An engine that does not report replicas: its task's loss is the one line.
            if (!t.loss.empty())
                out.push_back({t.task, &t.loss});
            continue;
        }
        for (const ReplicaData& r : t.replicas) {
            QString name = QStringLiteral("%1replica %2").arg(several ? t.task + ' ' : QString()).arg(r.replica);
            if (!r.device.isEmpty())
                name += QStringLiteral(" (%1)").arg(r.device);
            out.push_back({name, &r.loss});
        }
    }
}

void ThroughputLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    const std::vector<const TaskData*> training = computingTasks(tasks);
    for (const TaskData* t : training)
        out.push_back({t->task, &t->samplesPerSec});
    // A ParameterServer job's total is its coordinator's, even with one worker.
    if (training.size() < 2 && !isCoordinatedJob(tasks))
        return;
    if (generation() != m_totalGeneration) {
        m_total = Series();
        m_totalGeneration = generation();
    }
    extendTotalThroughput(tasks, m_total);
    out.push_back({QStringLiteral("total"), &m_total});
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
    for (const TaskData* t : training) {
        const QString prefix = several ? t->task + ' ' : QString();
        out.push_back({prefix + QStringLiteral("compute"), &t->computeMs});
        out.push_back({prefix + QStringLiteral("gradient reduction"), &t->commMs});
        out.push_back({prefix + QStringLiteral("input wait"), &t->inputMs});
    }
}

void EvaluationLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    for (const TaskData& t : tasks)
        for (const auto& [metric, series] : t.evaluation)
            out.push_back({t.task + ' ' + metric, &series});
}

void DeviceUtilizationLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    const bool several = tasks.size() > 1;
    for (const TaskData& t : tasks)
        for (const DeviceData& d : t.devices)
            out.push_back({several ? t.task + ' ' + d.device : d.device, &d.utilization});
}

void DeviceMemoryLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    const bool several = tasks.size() > 1;
    for (const TaskData& t : tasks) {
        const QString prefix = several ? t.task + ' ' : QString();
        for (const DeviceData& d : t.devices)
            out.push_back({prefix + d.device + QStringLiteral(" variables"), &d.variableBytes});
        if (!t.rssBytes.empty())
            out.push_back({prefix + QStringLiteral("process (resident)"), &t.rssBytes});
    }
}

void StalenessLines::collect(const std::vector<TaskData>& tasks, std::vector<Line>& out) const
{
    for (const TaskData* t : computingTasks(tasks)) {
        if (!t->stalenessMean.empty())
            out.push_back({t->task + QStringLiteral(" mean"), &t->stalenessMean});
        if (!t->stalenessMax.empty())
            out.push_back({t->task + QStringLiteral(" max"), &t->stalenessMax});
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
