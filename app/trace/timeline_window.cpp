#include "app/trace/timeline_window.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>

namespace strata::app {

namespace {

constexpr std::array kEngineLanes{"step", "reduce", "ps"};

int laneRank(const QString& lane)
{
    for (size_t i = 0; i < kEngineLanes.size(); ++i)
        if (lane == QLatin1String(kEngineLanes[i]))
            return int(i);
    return int(kEngineLanes.size());
}

// The job-clock range a step's spans cover: from its start (or the earliest span before it: a
// checkpoint between steps) to the latest end.
struct Extent {
    int64_t from = 0, to = 0;
};

Extent extentOf(const StepTrace& trace)
{
    Extent e{trace.t0Us, trace.t0Us};
    for (const TraceSpan& s : trace.spans) {
        e.from = std::min(e.from, trace.t0Us + s.startUs);
        e.to = std::max(e.to, trace.t0Us + s.startUs + s.durUs);
    }
    return e;
}

// Each span's depth in its lane: spans of a lane nest perfectly, so a span's depth is the
// number of the lane's spans still open where it starts (outer first: by start, longer first).
std::vector<int> depthsOf(const StepTrace& trace)
{
    const std::vector<TraceSpan>& spans = trace.spans;
    std::vector<size_t> order(spans.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const TraceSpan &x = spans[a], &y = spans[b];
        if (x.lane != y.lane)
            return x.lane < y.lane;
        if (x.startUs != y.startUs)
            return x.startUs < y.startUs;
        return x.durUs > y.durUs;
    });
    std::vector<int> depths(spans.size(), 0);
    std::vector<int64_t> open; // the ends of the lane's spans enclosing the current one
    const QString* lane = nullptr;
    for (const size_t i : order) {
        const TraceSpan& s = spans[i];
        if (!lane || *lane != s.lane) {
            lane = &s.lane;
            open.clear();
        }
        while (!open.empty() && open.back() <= s.startUs)
            open.pop_back();
        depths[i] = int(open.size());
        open.push_back(s.startUs + s.durUs);
    }
    return depths;
}

} // namespace

bool laneBefore(const QString& a, const QString& b)
{
    const int ra = laneRank(a), rb = laneRank(b);
    return ra != rb ? ra < rb : a < b;
}

Timeline timelineWindow(const std::vector<TimelineSource>& sources, const TimelineQuery& query)
{
    Timeline t;
    std::vector<const StepTraceRing*> rings;
    for (const TimelineSource& source : sources) {
        if (!source.traces || source.traces->empty())
            continue;
        // Its rows: every lane any kept step used, so that panning never moves a row.
        std::vector<QString> lanes;
        const StepTraceRing& ring = *source.traces;
        for (size_t i = 0; i < ring.size(); ++i)
            for (const TraceSpan& s : ring.at(i).spans)
                if (std::find(lanes.begin(), lanes.end(), s.lane) == lanes.end())
                    lanes.push_back(s.lane);
        if (lanes.empty())
            lanes.push_back(QStringLiteral("step"));
        std::sort(lanes.begin(), lanes.end(), laneBefore);
        const int task = int(t.tasks.size());
        t.tasks.push_back({source.task, int(t.rows.size()), int(lanes.size())});
        for (QString& lane : lanes)
            t.rows.push_back({task, std::move(lane)});
        rings.push_back(&ring);
    }
    if (rings.empty())
        return t;

    // The followed range: the freshest task's last steps, widened to the current tasks' own.
    const size_t steps = size_t(std::max(query.steps, 1));
    const auto lastStepsFrom = [&](const StepTraceRing& ring) { return ring.at(ring.size() - std::min(steps, ring.size())); };
    std::vector<Extent> newest(rings.size());
    size_t freshest = 0;
    t.keptFromUs = std::numeric_limits<int64_t>::max();
    t.keptToUs = std::numeric_limits<int64_t>::min();
    for (size_t i = 0; i < rings.size(); ++i) {
        newest[i] = extentOf(rings[i]->newest());
        if (newest[i].to > newest[freshest].to)
            freshest = i;
        t.keptFromUs = std::min(t.keptFromUs, extentOf(rings[i]->at(0)).from);
        t.keptToUs = std::max(t.keptToUs, newest[i].to);
    }
    const int64_t freshFrom = lastStepsFrom(*rings[freshest]).t0Us;
    t.followToUs = newest[freshest].to;
    t.followFromUs = std::numeric_limits<int64_t>::max();
    for (size_t i = 0; i < rings.size(); ++i) {
        if (newest[i].to < freshFrom)
            continue; // not current
        if (t.referenceTask < 0)
            t.referenceTask = int(i);
        const StepTrace& first = lastStepsFrom(*rings[i]);
        if (first.t0Us < t.followFromUs) {
            t.followFromUs = first.t0Us;
            t.followStep = first.step;
            t.followTask = int(i);
        }
    }

    const int64_t from = query.fromUs < query.toUs ? query.fromUs : t.followFromUs;
    const int64_t to = query.fromUs < query.toUs ? query.toUs : t.followToUs;
    for (size_t task = 0; task < rings.size(); ++task) {
        const StepTraceRing& ring = *rings[task];
        const TimelineTask& rowsOf = t.tasks[task];
        for (size_t i = 0; i < ring.size(); ++i) {
            const StepTrace& trace = ring.at(i);
            const Extent e = extentOf(trace);
            if (e.to < from || e.from > to)
                continue;
            t.stepStarts.push_back({int(task), trace.step, trace.t0Us});
            const std::vector<int> depths = depthsOf(trace);
            for (size_t k = 0; k < trace.spans.size(); ++k) {
                const TraceSpan& s = trace.spans[k];
                int row = rowsOf.firstRow;
                while (t.rows[size_t(row)].lane != s.lane)
                    ++row;
                t.spans.push_back({row, depths[k], s.name, trace.step, trace.t0Us, trace.t0Us + s.startUs, s.durUs});
            }
        }
    }
    std::sort(t.spans.begin(), t.spans.end(), [](const TimelineSpan& a, const TimelineSpan& b) {
        if (a.row != b.row)
            return a.row < b.row;
        return a.startUs != b.startUs ? a.startUs < b.startUs : a.depth < b.depth;
    });
    return t;
}

} // namespace strata::app
