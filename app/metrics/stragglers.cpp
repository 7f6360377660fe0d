#include "app/metrics/stragglers.h"

#include "app/metrics/job_roles.h"
#include "app/metrics/metrics_store.h"
#include "app/metrics/placement.h"

#include <QCoreApplication>
#include <QDateTime>

#include <algorithm>
#include <cmath>

namespace strata::app {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("strata::app::Stragglers", text); }

double median(std::vector<double> values)
{
    const size_t n = values.size();
    std::sort(values.begin(), values.end());
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The median of `sorted` (ascending, two values at least) without its value at `k`: the others'
// median of each worker of a bucket in one sort, not one per worker (64 workers: 64 sorts).
double medianWithout(const std::vector<double>& sorted, size_t k)
{
    const size_t n = sorted.size() - 1; // the others
    const auto other = [&](size_t i) { return sorted[i < k ? i : i + 1]; };
    return n % 2 ? other(n / 2) : (other(n / 2 - 1) + other(n / 2)) / 2;
}

// The mean of `s`'s points in [from, to); NaN when it has none there.
double meanIn(const Series& s, double from, double to)
{
    const int64_t begin = s.lowerBound(from), end = s.lowerBound(to);
    double sum = 0;
    for (int64_t i = begin; i < end; ++i)
        sum += double(s.y(i));
    return end > begin ? sum / double(end - begin) : std::numeric_limits<double>::quiet_NaN();
}

// The wall time (unix seconds) of `task`'s step at `x`; NaN when that step has none.
double wallTime(const TaskData& task, double x)
{
    const int64_t i = task.wallSeconds.lowerBound(x);
    return i < task.wallSeconds.size() && task.wallSeconds.x(i) == x ? task.firstEventTime + double(task.wallSeconds.y(i))
                                                                      : std::numeric_limits<double>::quiet_NaN();
}

// The workers ParameterServer's coordinator has lost (its latest view): they would step again at
// the global step then, beyond every bucket judged.
std::vector<QString> lostByCoordinator(const std::vector<TaskData>& tasks)
{
    std::vector<QString> lost;
    for (const TaskData& t : tasks)
        for (const StepEvent::Worker& w : t.workers)
            if (w.state == "lost")
                lost.push_back(w.task);
    return lost;
}

QString msText(double ms)
{
    return QString::number(ms, 'f', ms < 1 ? 2 : ms < 10 ? 1 : 0);
}

// "2.4x the median time per step (41 ms against 17 ms)".
QString figuresText(const StragglerFigures& f)
{
    return tr("%1x the median time per step (%2 ms against %3 ms)")
        .arg(QString::number(f.ratio(), 'f', 1), msText(f.ms), msText(f.medianMs));
}

// "step 120 (20:31:05)", local time; the step alone when its time is not known.
QString stepText(int64_t step, double time)
{
    if (!std::isfinite(time))
        return tr("step %1").arg(step);
    return tr("step %1 (%2)").arg(step).arg(QDateTime::fromMSecsSinceEpoch(qint64(std::llround(time * 1000)))
                                                .toString(QStringLiteral("HH:mm:ss")));
}

QString named(const Straggler& s)
{
    return s.place.isEmpty() ? s.task : tr("%1 on %2").arg(s.task, s.place);
}

} // namespace

StragglerWatch::Worker& StragglerWatch::worker(const QString& task)
{
    for (Worker& w : m_workers)
        if (w.task == task)
            return w;
    m_workers.push_back({});
    m_workers.back().task = task;
    return m_workers.back();
}

std::vector<StragglerNews> StragglerWatch::advance(const std::vector<TaskData>& tasks)
{
    std::vector<StragglerNews> news;
    // Called after every batch of events: who computes is worked out again only when a task
    // joins the store (the tasks are never removed but by clear(), which ends the watch too).
    if (tasks.size() != m_known || m_width == 0) {
        m_known = tasks.size();
        if (m_width == 0)
            m_coordinated = isCoordinatedJob(tasks);
        m_computing.clear();
        for (const TaskData* t : computingTasks(tasks))
            m_computing.push_back(size_t(t - tasks.data()));
    }
    if (m_computing.size() < 2)
        return news;
    // How far every task still running has stepped: nothing of it can land before its last point.
    // A task whose process is gone has every record in (the launcher and a replay hand over its
    // last records before they say so; its `done` may come before them).
    const std::vector<QString> lost = m_coordinated ? lostByCoordinator(tasks) : std::vector<QString>();
    double first = std::numeric_limits<double>::infinity(), last = -first, reached = first;
    bool running = false;
    std::vector<const TaskData*> computing;
    for (size_t i : m_computing) {
        const TaskData& t = tasks[i];
        computing.push_back(&t);
        if (!t.stepMs.empty()) {
            first = std::min(first, t.stepMs.x(0));
            last = std::max(last, t.stepMs.lastX());
        }
        if (!t.exited && std::find(lost.begin(), lost.end(), t.task) == lost.end()) {
            running = true;
            reached = std::min(reached, t.stepMs.empty() ? -std::numeric_limits<double>::infinity() : t.stepMs.lastX());
        }
    }
    if (!std::isfinite(first))
        return news;
    if (m_width == 0) {
        // Under ParameterServer the workers share the global steps: a bucket holds about
        // kStepsPerBucket of each worker's.
        m_width = double(kStepsPerBucket) * double(m_coordinated ? computing.size() : 1);
        m_next = std::floor(first / m_width) * m_width;
    }
    // Once every task has ended, the last buckets too (those holding any point).
    const double limit = running ? reached : last + m_width;
    for (; m_next + m_width <= limit; m_next += m_width)
        judge(computing, m_next, m_next + m_width, news);
    return news;
}

void StragglerWatch::judge(const std::vector<const TaskData*>& computing, double from, double to,
                           std::vector<StragglerNews>& news)
{
    std::vector<Sample> samples;
    double decided = -std::numeric_limits<double>::infinity(); // the bucket's last wall time
    for (const TaskData* t : computing) {
        const double step = meanIn(t->stepMs, from, to);
        if (std::isnan(step))
            continue;
        const double comm = m_coordinated ? std::numeric_limits<double>::quiet_NaN() : meanIn(t->commMs, from, to);
        Sample s;
        s.task = t;
        s.step = step;
        s.own = std::isnan(comm) ? step : std::max(0.0, step - comm);
        const int64_t begin = t->stepMs.lowerBound(from), end = t->stepMs.lowerBound(to);
        s.firstStep = int64_t(t->stepMs.x(begin));
        s.lastStep = int64_t(t->stepMs.x(end - 1));
        s.firstTime = wallTime(*t, t->stepMs.x(begin));
        s.lastTime = wallTime(*t, t->stepMs.x(end - 1));
        if (std::isfinite(s.lastTime))
            decided = std::max(decided, s.lastTime);
        else
            decided = std::max(decided, t->lastEventTime);
        samples.push_back(s);
    }
    if (samples.size() < 2)
        return; // nobody to compare with
    std::vector<double> steps, own;
    for (const Sample& s : samples) {
        steps.push_back(s.step);
        own.push_back(s.own);
    }
    const double medianStep = median(steps);
    std::sort(own.begin(), own.end());
    for (const Sample& s : samples) {
        const size_t k = size_t(std::lower_bound(own.begin(), own.end(), s.own) - own.begin());
        const double m = medianWithout(own, k);
        const bool matters = s.own - m >= kMinStepShare * medianStep;
        const bool slow = matters && s.own >= kSlowRatio * m;
        const bool fast = !matters || s.own < kRecoveredRatio * m;
        update(worker(s.task->task), s, m, slow, fast, decided, news);
    }
}

void StragglerWatch::update(Worker& w, const Sample& s, double median, bool slow, bool fast, double decided,
                            std::vector<StragglerNews>& news)
{
    const bool straggling = w.open >= 0;
    // A bucket pointing at a change of state: slow while not a straggler, fast while one.
    if (straggling ? fast : slow) {
        if (w.run++ == 0) {
            w.runStep = s.firstStep;
            w.runTime = s.firstTime;
        }
        w.runSums.add(s.own, median);
        if (w.run < kSustainedBuckets)
            return;
        if (!straggling) {
            Straggler found;
            found.task = w.task;
            found.place = placeOf(*s.task);
            found.sinceStep = w.runStep;
            found.sinceTime = w.runTime;
            found.onset = found.overall = w.runSums.figures();
            found.untilStep = s.lastStep;
            found.untilTime = s.lastTime;
            w.overall = w.runSums;
            w.open = int(m_found.size());
            m_found.push_back(found);
            news.push_back({decided, w.task, false, stragglerText(found)});
        } else {
            Straggler& open = m_found[size_t(w.open)];
            open.recovered = true;
            open.untilStep = w.runStep;
            open.untilTime = w.runTime;
            open.recovery = w.runSums.figures();
            w.open = -1;
            news.push_back({decided, w.task, true, recoveryText(open)});
        }
        w.run = 0;
        w.runSums = {};
        return;
    }
    // Not a change: a run towards one is broken (while a straggler, its buckets were the stretch's).
    if (straggling) {
        Straggler& open = m_found[size_t(w.open)];
        if (w.run > 0) {
            w.overall.ms += w.runSums.ms;
            w.overall.medianMs += w.runSums.medianMs;
            w.overall.buckets += w.runSums.buckets;
        }
        w.overall.add(s.own, median);
        open.overall = w.overall.figures();
        open.untilStep = s.lastStep;
        open.untilTime = s.lastTime;
    }
    w.run = 0;
    w.runSums = {};
}

QString stragglerText(const Straggler& s)
{
    return tr("%1 is a straggler: %2 since %3").arg(named(s), figuresText(s.onset), stepText(s.sinceStep, s.sinceTime));
}

QString recoveryText(const Straggler& s)
{
    return tr("%1 is no longer a straggler: %2 since %3")
        .arg(named(s), figuresText(s.recovery), stepText(s.untilStep, s.untilTime));
}

QString stretchText(const Straggler& s)
{
    if (s.recovered)
        return tr("%1: %2 from %3 to %4")
            .arg(named(s), figuresText(s.overall), stepText(s.sinceStep, s.sinceTime), stepText(s.untilStep, s.untilTime));
    return tr("%1: %2 since %3, still slow at step %4")
        .arg(named(s), figuresText(s.overall), stepText(s.sinceStep, s.sinceTime))
        .arg(s.untilStep);
}

} // namespace strata::app
