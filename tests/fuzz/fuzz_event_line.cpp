// The app's event lines (JSON Lines from an engine's stdout or events-<task>.jsonl), as the
// launcher and the run replay read them: EventParser's simdjson path, checked against the
// rule it promises (event_parse.h): each line reads exactly as nlohmann's parse of it read
// through fromJson(), field by field; then the events applied to a MetricsStore, and each
// line read as the supervisor's `exit` line is (task_ends.h).

#include "fuzz_support.h"

#include "app/metrics/event_parse.h"
#include "app/metrics/metrics_store.h"
#include "app/rundir/task_ends.h"

#include <QCoreApplication>

#include <cmath>

using namespace strata;
using app::ParsedEvent;
using app::StepEvent;

namespace {

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// "" when equal, else the first field that differs.
std::string difference(const ParsedEvent& a, const ParsedEvent& b)
{
    if (a.kind != b.kind)
        return "kind";
    if (!same(a.t, b.t))
        return "t";
    if (a.task != b.task)
        return "task";
    if (a.json != b.json)
        return "json";
    if (a.line != b.line)
        return "line";
    const StepEvent &x = a.step, &y = b.step;
    if (x.step != y.step || x.globalStep != y.globalStep)
        return "step";
    for (const auto& [u, v] : {std::pair{x.loss, y.loss}, {x.samplesPerSec, y.samplesPerSec}, {x.stepMs, y.stepMs},
                               {x.computeMs, y.computeMs}, {x.commMs, y.commMs}, {x.inputMs, y.inputMs},
                               {x.stalenessMean, y.stalenessMean}, {x.stalenessMax, y.stalenessMax}})
        if (!same(u, v))
            return "a number of the step";
    if (x.metrics.size() != y.metrics.size())
        return "metrics";
    for (size_t i = 0; i < x.metrics.size(); ++i)
        if (x.metrics[i].name != y.metrics[i].name || !same(x.metrics[i].value, y.metrics[i].value))
            return "metrics";
    if (x.replicas.size() != y.replicas.size())
        return "replicas";
    for (size_t i = 0; i < x.replicas.size(); ++i)
        if (x.replicas[i].replica != y.replicas[i].replica || x.replicas[i].device != y.replicas[i].device ||
            !same(x.replicas[i].loss, y.replicas[i].loss) || !same(x.replicas[i].samples, y.replicas[i].samples))
            return "replicas";
    if (x.workers.size() != y.workers.size())
        return "workers";
    for (size_t i = 0; i < x.workers.size(); ++i)
        if (x.workers[i].task != y.workers[i].task || x.workers[i].steps != y.workers[i].steps ||
            !same(x.workers[i].samplesPerSec, y.workers[i].samplesPerSec) ||
            !same(x.workers[i].stalenessMean, y.workers[i].stalenessMean) ||
            !same(x.workers[i].stalenessMax, y.workers[i].stalenessMax) || x.workers[i].state != y.workers[i].state)
            return "workers";
    if (x.trace.has_value() != y.trace.has_value())
        return "trace";
    if (x.trace) {
        const app::StepTrace &p = *x.trace, &q = *y.trace;
        if (p.step != q.step || p.t0Us != q.t0Us || p.clockOffsetUs != q.clockOffsetUs || p.spans.size() != q.spans.size())
            return "trace";
        for (size_t i = 0; i < p.spans.size(); ++i)
            if (p.spans[i].lane != q.spans[i].lane || p.spans[i].name != q.spans[i].name ||
                p.spans[i].startUs != q.spans[i].startUs || p.spans[i].durUs != q.spans[i].durUs)
                return "trace";
    }
    return {};
}

} // namespace

// The store's coalescing timer needs the application a launcher runs in; without one, Qt
// warns on every input and the log grows by a line per execution.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    static QCoreApplication app(*argc, *argv);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string_view input = fuzz::text(data, size);
    app::EventParser& parser = app::EventParser::forThisThread();
    std::vector<ParsedEvent> events;
    parser.parseLines(input.data(), input.size(), events);

    // The same lines one by one, each also through nlohmann and fromJson().
    size_t next = 0;
    for (size_t at = 0; at < input.size();) {
        size_t eol = input.find('\n', at);
        if (eol == std::string_view::npos)
            eol = input.size();
        const std::string_view line = input.substr(at, eol - at);
        at = eol + 1;
        const std::optional<ParsedEvent> event = parser.parseLine(line);
        if (!event)
            continue;
        if (next >= events.size() || !difference(*event, events[next]).empty())
            fuzz::fail("parseLines and parseLine disagree on line " + std::to_string(next));
        ++next;
        const app::Json json = app::Json::parse(line.begin(), line.end(), nullptr, false);
        if (json.is_discarded() || !json.is_object()) {
            if (event->kind != ParsedEvent::Kind::NotAnEvent)
                fuzz::fail("a line nlohmann does not read as an object is an event: " + std::string(line));
            continue;
        }
        const std::string differs = difference(*event, parser.fromJson(json));
        if (!differs.empty())
            fuzz::fail("a line and its Json differ in " + differs + ": " + std::string(line));
    }
    if (next != events.size())
        fuzz::fail("parseLines found more events than lines");

    app::MetricsStore store;
    std::vector<app::TaskEnd> ends;
    for (const ParsedEvent& event : events)
        if (event.kind == ParsedEvent::Kind::Other)
            if (std::optional<app::TaskEnd> end = app::exitFromEvent(event.json))
                ends.push_back(std::move(*end));
    store.ingest(QStringLiteral("worker:0"), std::move(events));
    for (const app::TaskEnd& end : ends)
        app::applyTaskEnd(store, end);
    return 0;
}
