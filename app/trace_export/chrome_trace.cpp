#include "app/trace_export/chrome_trace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

namespace strata::app {

namespace {

using Json = nlohmann::ordered_json;

// Lanes as the engine names them, in the order Perfetto lists their threads.
const char* const kLanes[] = {"step", "reduce", "ps"};

struct Event {
    int64_t ts, end;
    const TraceSpan* span;
    int64_t step;
};

void append(QByteArray& out, const Json& event)
{
    out += out.endsWith('[') ? "\n" : ",\n";
    out += QByteArray::fromStdString(event.dump(-1, ' ', false, Json::error_handler_t::replace));
}

Json metadata(const char* name, int pid, int tid, const QString& value)
{
    return {{"name", name}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", value.toStdString()}}}};
}

// One task's lane: sorted, parents first, clamped to nest.
void writeLane(QByteArray& out, std::vector<Event>& events, int pid, int tid, const QString& lane)
{
    std::sort(events.begin(), events.end(),
              [](const Event& a, const Event& b) { return a.ts != b.ts ? a.ts < b.ts : a.end > b.end; });
    std::vector<int64_t> open; // the ends of the spans enclosing the current one
    const std::string cat = lane.toStdString();
    for (Event& e : events) {
        while (!open.empty() && open.back() <= e.ts)
            open.pop_back();
        if (!open.empty())
            e.end = std::min(e.end, open.back());
        open.push_back(e.end);
        append(out, Json{{"name", e.span->name.toStdString()},
                         {"cat", cat},
                         {"ph", "X"},
                         {"ts", e.ts},
                         {"dur", e.end - e.ts},
                         {"pid", pid},
                         {"tid", tid},
                         {"args", {{"step", e.step}}}});
    }
}

} // namespace

QByteArray chromeTraceJson(const std::vector<RunTraces>& runs)
{
    int64_t origin = std::numeric_limits<int64_t>::max();
    for (const RunTraces& run : runs)
        for (const TaskTraces& task : run.tasks)
            for (const TracedStep& s : task.steps) {
                origin = std::min(origin, s.trace.t0Us);
                for (const TraceSpan& span : s.trace.spans)
                    origin = std::min(origin, s.trace.t0Us + span.startUs);
            }
    if (origin == std::numeric_limits<int64_t>::max())
        origin = 0;

    QByteArray out = "{\"traceEvents\": [";
    int pid = 0;
    for (const RunTraces& run : runs) {
        for (const TaskTraces& task : run.tasks) {
            ++pid;
            QString name = task.host.isEmpty() ? task.task : QStringLiteral("%1 @ %2").arg(task.task, task.host);
            if (runs.size() > 1)
                name = QStringLiteral("%1: %2").arg(run.label, name);
            append(out, metadata("process_name", pid, 0, name));
            append(out, Json{{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", 0},
                             {"args", {{"sort_index", pid}}}});
            // The lanes: the engine's in their order, then any other in order of appearance.
            std::vector<QString> lanes(std::begin(kLanes), std::end(kLanes));
            std::vector<std::vector<Event>> events(lanes.size());
            for (const TracedStep& s : task.steps)
                for (const TraceSpan& span : s.trace.spans) {
                    auto it = std::find(lanes.begin(), lanes.end(), span.lane);
                    if (it == lanes.end()) {
                        lanes.push_back(span.lane);
                        events.emplace_back();
                        it = lanes.end() - 1;
                    }
                    const int64_t ts = s.trace.t0Us + span.startUs - origin;
                    events[size_t(it - lanes.begin())].push_back({ts, ts + span.durUs, &span, s.trace.step});
                }
            for (size_t l = 0; l < lanes.size(); ++l) {
                if (events[l].empty())
                    continue;
                const int tid = int(l) + 1;
                append(out, metadata("thread_name", pid, tid, lanes[l]));
                append(out, Json{{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", tid},
                                 {"args", {{"sort_index", tid}}}});
                writeLane(out, events[l], pid, tid, lanes[l]);
            }
            // Throughput at each step's end: its samples over its wall time.
            for (const TracedStep& s : task.steps) {
                if (s.stepMs <= 0)
                    continue;
                const int64_t end = s.trace.t0Us + int64_t(s.stepMs * 1000.0) - origin;
                append(out, Json{{"name", "throughput"}, {"ph", "C"}, {"ts", end}, {"pid", pid}, {"tid", 0},
                                 {"args", {{"samples/s", s.samples / (s.stepMs / 1000.0)}}}});
            }
        }
    }
    Json other{{"ts_origin_us", origin},
               {"clock", "the job's clock (each task's steps on the chief's clock); ts in µs from ts_origin_us"},
               {"source", "strata export trace"}};
    out += "\n], \"displayTimeUnit\": \"ms\", \"otherData\": ";
    out += QByteArray::fromStdString(other.dump());
    out += "}\n";
    return out;
}

} // namespace strata::app
