#include "app/compare/comparison.h"

#include "app/metrics/job_roles.h"
#include "app/metrics/placement.h"
#include "app/metrics/plot_csv.h"

#include "strata/schema/events.h"

#include <QSaveFile>

#include <algorithm>
#include <cmath>

namespace strata::app {

namespace {

// The value of `s` at exactly step `x`, if it has one.
std::optional<double> valueAt(const Series& s, double x)
{
    const int64_t i = s.lowerBound(x);
    if (i == s.size() || s.x(i) != x || !std::isfinite(s.y(i)))
        return std::nullopt;
    return double(s.y(i));
}

// The step training (re)started from: windows count their steps from there.
double firstStep(const TaskData& task)
{
    return double(schema::readStartEvent(task.start).resumedFromStep.value_or(0));
}

// Calls fn(i, steps) for each window (point) of `s`, x being a window's last step.
template<typename Fn>
void forEachWindow(const Series& s, double from, Fn fn)
{
    double previous = from;
    for (int64_t i = 0; i < s.size(); ++i) {
        const double steps = s.x(i) - previous;
        previous = s.x(i);
        if (steps > 0)
            fn(i, steps);
    }
}

std::optional<double> number(const Json& j, const char* key)
{
    const auto it = j.is_object() ? j.find(key) : j.end();
    if (it == j.end() || !it->is_number())
        return std::nullopt;
    return it->get<double>();
}

FinalMetrics finalMetrics(const Json& metrics)
{
    return {number(metrics, "loss"), number(metrics, "accuracy")};
}

QString fixed(const std::optional<double>& v, int decimals)
{
    return v ? QString::number(*v, 'f', decimals) : QString();
}

} // namespace

std::optional<double> steadySamplesPerSec(const TaskData& task, double warmupFraction)
{
    const Series& sps = task.samplesPerSec;
    if (sps.empty())
        return std::nullopt;
    const double from = firstStep(task);
    const double warmupEnd = from + warmupFraction * (sps.lastX() - from);
    // Samples and seconds (x 1000) of the windows, after warm-up and in all.
    double samples[2] = {0, 0}, ms[2] = {0, 0};
    forEachWindow(sps, from, [&](int64_t i, double steps) {
        const auto stepMs = valueAt(task.stepMs, sps.x(i));
        if (!stepMs || !std::isfinite(sps.y(i)))
            return;
        const double windowMs = steps * *stepMs;
        const bool steady = sps.x(i) - steps >= warmupEnd && i > 0;
        for (int all = 0; all < 2; ++all)
            if (all || steady) {
                samples[all] += double(sps.y(i)) * windowMs;
                ms[all] += windowMs;
            }
    });
    const int use = ms[0] > 0 ? 0 : 1;
    if (!(ms[use] > 0))
        return std::nullopt;
    return samples[use] / ms[use];
}

std::optional<StepSplit> meanStepSplit(const TaskData& task)
{
    StepSplit sum;
    double steps = 0;
    forEachWindow(task.stepMs, firstStep(task), [&](int64_t i, double n) {
        const double x = task.stepMs.x(i);
        const auto compute = valueAt(task.computeMs, x), comm = valueAt(task.commMs, x),
                   input = valueAt(task.inputMs, x);
        if (!compute || !comm || !input || !std::isfinite(task.stepMs.y(i)))
            return;
        sum.stepMs += n * double(task.stepMs.y(i));
        sum.computeMs += n * *compute;
        sum.commMs += n * *comm;
        sum.inputMs += n * *input;
        steps += n;
    });
    if (steps <= 0)
        return std::nullopt;
    return StepSplit{sum.stepMs / steps, sum.computeMs / steps, sum.commMs / steps, sum.inputMs / steps};
}

std::optional<double> commShare(const StepSplit& split)
{
    // Means weighted alike: their ratio is Σ comm / Σ step.
    if (!(split.stepMs > 0))
        return std::nullopt;
    return split.commMs / split.stepMs;
}

std::optional<double> timeToLoss(const Series& loss, const Series& wallSeconds, double target,
                                 const Smoothing& smoothing)
{
    Series smoothed;
    const Series* s = &loss;
    if (smoothing.kind != Smoothing::Kind::None) {
        smoothSeries(loss, smoothing, smoothed);
        s = &smoothed;
    }
    // In the series' precision: a loss reported as 0.6 has reached a target of 0.6.
    const float reached = float(target);
    for (int64_t i = 0; i < s->size(); ++i)
        if (s->y(i) <= reached) { // false for NaN
            const int64_t at = wallSeconds.lowerBound(s->x(i));
            if (at == wallSeconds.size())
                return std::nullopt;
            return double(wallSeconds.y(at));
        }
    return std::nullopt;
}

int64_t extendLossVsWallTime(const Series& loss, const Series& wallSeconds, int64_t from, Series& out)
{
    for (int64_t i = std::max<int64_t>(from, 0); i < loss.size(); ++i)
        if (const auto wall = valueAt(wallSeconds, loss.x(i)))
            out.append(*wall, loss.y(i));
    return loss.size();
}

RunSummary summarizeRun(const std::vector<TaskData>& tasks, const QString& label, const CompareOptions& options)
{
    RunSummary r;
    r.label = label;
    const TaskData* t = primaryTask(tasks);
    if (!t)
        return r;
    const schema::PlacementEvent placement = schema::readPlacementEvent(t->placement);
    schema::StartEvent shape; // what the run's shape falls back on where `start` lacks a field
    shape.replicas = int64_t(t->replicas.size());
    shape.batchSize = placement.globalBatchSize;
    const schema::StartEvent start = schema::readStartEvent(t->start, shape);
    r.strategy = QString::fromStdString(placement.strategy.empty() ? start.strategy : placement.strategy);
    r.replicas = int(start.replicas);
    r.globalBatch = start.batchSize;
    r.state = t->state;
    r.steps = t->step;
    if (t->lastEventTime > 0)
        r.wallSeconds = t->lastEventTime - t->firstEventTime;

    const EpochRecord* lastEpoch = t->epochs.empty() ? nullptr : &t->epochs.back();
    const auto pick = [&](const char* key, const Json& fromEpoch) {
        const auto it = t->done.is_object() ? t->done.find(key) : t->done.end();
        return finalMetrics(it != t->done.end() && it->is_object() ? *it : fromEpoch);
    };
    r.train = pick("train", lastEpoch ? lastEpoch->train : Json());
    r.validation = pick("validation", lastEpoch ? lastEpoch->validation : Json());
    r.test = pick("test", Json());

    for (const TaskData* task : throughputTasks(tasks))
        if (const auto sps = steadySamplesPerSec(*task, options.warmupFraction))
            r.samplesPerSec = r.samplesPerSec.value_or(0) + *sps;
    r.split = meanStepSplit(*t);
    if (r.split)
        r.commShare = commShare(*r.split);
    if (options.targetLoss)
        r.timeToTarget = timeToLoss(t->loss, t->wallSeconds, *options.targetLoss, options.targetSmoothing);
    r.workers = int(computingTasks(tasks).size());
    return r;
}

RunSummary summarizeRun(const ComparedRun& run, const CompareOptions& options)
{
    RunSummary r;
    run.store->read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        r = summarizeRun(tasks, run.label, options);
    });
    r.stragglers = run.store->stragglers();
    return r;
}

QString stragglersCell(const RunSummary& run)
{
    if (run.workers < 2)
        return {};
    std::vector<std::pair<QString, double>> worst; // per task, in the order they first straggled
    for (const Straggler& s : run.stragglers) {
        auto it = std::find_if(worst.begin(), worst.end(), [&](const auto& w) { return w.first == s.task; });
        if (it == worst.end())
            worst.emplace_back(s.task, s.overall.ratio());
        else
            it->second = std::max(it->second, s.overall.ratio());
    }
    QStringList cells;
    for (const auto& [task, ratio] : worst)
        cells << QStringLiteral("%1 %2x").arg(task, QString::number(ratio, 'f', 1));
    return cells.isEmpty() ? QStringLiteral("none") : cells.join(QStringLiteral(", "));
}

std::optional<Scaling> scalingAgainst(const RunSummary& run, const RunSummary& baseline)
{
    if (!run.samplesPerSec || !baseline.samplesPerSec || !(*baseline.samplesPerSec > 0) || run.replicas <= 0
        || baseline.replicas <= 0)
        return std::nullopt;
    const double speedup = *run.samplesPerSec / *baseline.samplesPerSec;
    return Scaling{speedup, speedup / (double(run.replicas) / double(baseline.replicas))};
}

int defaultBaseline(const std::vector<RunSummary>& runs)
{
    for (size_t i = 0; i < runs.size(); ++i)
        if (runs[i].strategy == QLatin1String("OneDevice") || runs[i].strategy == QLatin1String("Default"))
            return int(i);
    return 0;
}

ComparisonTable compareSummaries(std::vector<RunSummary> runs, const CompareOptions& options)
{
    ComparisonTable table;
    table.targetLoss = options.targetLoss;
    table.baseline = options.baseline >= 0 && size_t(options.baseline) < runs.size() ? options.baseline
                                                                                   : defaultBaseline(runs);
    for (const RunSummary& r : runs)
        table.scaling.push_back(scalingAgainst(r, runs[size_t(table.baseline)]));
    table.runs = std::move(runs);
    return table;
}

ComparisonTable compareRuns(const std::vector<ComparedRun>& runs, const CompareOptions& options)
{
    std::vector<RunSummary> summaries;
    for (const ComparedRun& run : runs)
        summaries.push_back(summarizeRun(run, options));
    return compareSummaries(std::move(summaries), options);
}

QStringList ComparisonTable::header() const
{
    QStringList h{QStringLiteral("run"), QStringLiteral("strategy"), QStringLiteral("replicas"),
                  QStringLiteral("global batch"), QStringLiteral("status"), QStringLiteral("steps"),
                  QStringLiteral("wall (s)"), QStringLiteral("train loss"), QStringLiteral("train accuracy"),
                  QStringLiteral("validation loss"), QStringLiteral("validation accuracy"), QStringLiteral("test loss"),
                  QStringLiteral("test accuracy"), QStringLiteral("samples/s"), QStringLiteral("speedup"),
                  QStringLiteral("scaling efficiency")};
    if (targetLoss)
        h << QStringLiteral("time to loss <= %1 (s)").arg(*targetLoss);
    h << QStringLiteral("comm share (%)") << QStringLiteral("stragglers");
    return h;
}

QStringList ComparisonTable::cells(int run) const
{
    const RunSummary& r = runs[size_t(run)];
    const std::optional<Scaling>& s = scaling[size_t(run)];
    QStringList c{r.label,
                  r.strategy,
                  r.replicas > 0 ? QString::number(r.replicas) : QString(),
                  r.globalBatch > 0 ? QString::number(r.globalBatch) : QString(),
                  stateName(r.state),
                  QString::number(r.steps),
                  fixed(r.wallSeconds, 2),
                  fixed(r.train.loss, 4),
                  fixed(r.train.accuracy, 4),
                  fixed(r.validation.loss, 4),
                  fixed(r.validation.accuracy, 4),
                  fixed(r.test.loss, 4),
                  fixed(r.test.accuracy, 4),
                  fixed(r.samplesPerSec, 1),
                  s ? QString::number(s->speedup, 'f', 2) : QString(),
                  s ? QString::number(s->efficiency, 'f', 2) : QString()};
    if (targetLoss)
        c << (r.timeToTarget ? QString::number(*r.timeToTarget, 'f', 2) : QStringLiteral("not reached"));
    c << (r.commShare ? QString::number(*r.commShare * 100, 'f', 1) : QString()) << stragglersCell(r);
    return c;
}

QStringList ComparisonTable::tips(int run) const
{
    QStringList t(header().size());
    QStringList stretches;
    for (const Straggler& s : runs[size_t(run)].stragglers)
        stretches << stretchText(s);
    t.back() = stretches.join('\n'); // the stragglers' cell, the last
    return t;
}

QString tableCsv(const ComparisonTable& table)
{
    const auto row = [](const QStringList& cells) {
        QByteArrayList fields;
        for (const QString& cell : cells)
            fields << csvField(cell);
        return QString::fromUtf8(fields.join(',')) + QLatin1Char('\n');
    };
    QString out = row(table.header());
    for (int i = 0; i < int(table.runs.size()); ++i)
        out += row(table.cells(i));
    return out;
}

namespace {

// The table turned: a row per figure (the header's names), a column per run.
std::vector<QStringList> transposed(const ComparisonTable& table, const QString& unknown)
{
    const QStringList header = table.header();
    std::vector<QStringList> rows(size_t(header.size()));
    for (qsizetype f = 0; f < header.size(); ++f)
        rows[size_t(f)] << header[f];
    for (int r = 0; r < int(table.runs.size()); ++r) {
        const QStringList cells = table.cells(r);
        for (qsizetype f = 0; f < cells.size(); ++f)
            rows[size_t(f)] << (cells[f].isEmpty() ? unknown : cells[f]);
    }
    return rows;
}

std::vector<qsizetype> columnWidths(const std::vector<QStringList>& rows)
{
    std::vector<qsizetype> widths;
    for (const QStringList& row : rows)
        for (qsizetype c = 0; c < row.size(); ++c) {
            if (size_t(c) >= widths.size())
                widths.push_back(0);
            widths[size_t(c)] = std::max(widths[size_t(c)], row[c].size());
        }
    return widths;
}

} // namespace

QString tableMarkdown(const ComparisonTable& table)
{
    std::vector<QStringList> rows = transposed(table, QStringLiteral("-"));
    for (QStringList& row : rows)
        for (QString& cell : row)
            cell.replace(QLatin1Char('|'), QLatin1String("\\|"));
    const std::vector<qsizetype> widths = columnWidths(rows);
    QString out;
    const auto line = [&](const QStringList& row) {
        for (qsizetype c = 0; c < row.size(); ++c)
            out += QLatin1String("| ")
                   + (c == 0 ? row[c].leftJustified(widths[size_t(c)]) : row[c].rightJustified(widths[size_t(c)]))
                   + QLatin1Char(' ');
        out += QLatin1String("|\n");
    };
    for (size_t r = 0; r < rows.size(); ++r) {
        line(rows[r]);
        if (r == 0) { // under the runs' names: figures left, values right-aligned
            QStringList rule;
            for (size_t c = 0; c < widths.size(); ++c)
                rule << (c == 0 ? QString(widths[c], QLatin1Char('-')) : QString(widths[c] - 1, QLatin1Char('-')) + ':');
            line(rule);
        }
    }
    return out;
}

QString tableText(const ComparisonTable& table)
{
    const std::vector<QStringList> rows = transposed(table, QStringLiteral("-"));
    const std::vector<qsizetype> widths = columnWidths(rows);
    QString out;
    for (const QStringList& row : rows) {
        QString line = row[0].leftJustified(widths[0]);
        for (qsizetype c = 1; c < row.size(); ++c)
            line += QLatin1String("  ") + row[c].rightJustified(widths[size_t(c)]);
        out += line + QLatin1Char('\n');
    }
    return out;
}

bool writeTextFile(const QString& path, const QString& text, QString* error)
{
    QSaveFile file(path);
    const QByteArray bytes = text.toUtf8();
    // flush() before commit(): Qt 6.4's commit() ignores a failed flush (a full disk).
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.flush() || !file.commit()) {
        *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace strata::app
