// strata-bench-timeline [--workers N] [--steps S] [--rounds R]: what the Timeline panel costs.
// 1. Ingestion: every worker's S step records, parsed and applied to a MetricsStore as the
//    launcher hands them over (MetricsStore::ingest with records), with each step's `trace` (a
//    MultiWorkerMirrored step's 8 spans: the step, input, forward, backward, wait, optimizer,
//    two buckets) and without, alternated R times: steps stored per second each way.
// 2. Memory: what the rings keep (each task's last 64 steps), counted from their contents.
// 3. The panel: a DashboardPage at 1600x1000 on the Timeline tab (shown maximised), the
//    TimelineView's refresh (the store read, the spans laid out, QCustomPlot's replot) timed 20
//    times following the latest steps, and 20 times zoomed into one step.
#include "bench_timing.h"
#include "cpu_name.h"
#include "parsed_events.h"

#include "app/metrics/metrics_store.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/dashboard/timeline_view.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QTabWidget>

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace strata;

namespace {

constexpr int64_t kT0Us = 1'764'000'000'000'000;
constexpr int64_t kStepUs = 7000;

// Worker w's record of step s, with its timeline or without.
std::string recordLine(int worker, int64_t step, bool traced)
{
    const int64_t t0 = kT0Us + (step - 1) * (kStepUs + 100) + worker * 20;
    std::string line = "{\"t\":" + std::to_string(double(t0 + kStepUs) / 1e6) + ",\"step\":" + std::to_string(step) +
                       ",\"epoch\":0,\"loss\":1.25,\"replica_loss\":[1.25],\"samples\":32,\"step_ms\":7,\"compute_ms\":5,"
                       "\"comm_ms\":1.5,\"input_ms\":0.5,\"metrics\":{\"accuracy\":0.5}";
    if (traced)
        line += ",\"trace\":{\"t0\":" + std::to_string(t0) +
                ",\"spans\":[[\"step\",\"step\",0,7000],[\"step\",\"input\",0,500],[\"step\",\"forward\",500,2000],"
                "[\"step\",\"backward\",2500,3000],[\"step\",\"wait\",5500,1000],[\"step\",\"optimizer\",6500,500],"
                "[\"reduce\",\"bucket 0\",4000,1000],[\"reduce\",\"bucket 1\",5500,1000]],\"clock_offset_us\":" +
                std::to_string(worker * 7) + "}";
    return line + "}\n";
}

// Every worker's steps (from, to] into `store`, a batch of at most 1000 records per worker at a time.
void feed(app::MetricsStore& store, int workers, int64_t from, int64_t to, bool traced)
{
    for (int w = 0; w < workers; ++w) {
        const QString task = QStringLiteral("worker:%1").arg(w);
        for (int64_t s = from + 1; s <= to;) {
            std::string lines;
            for (int64_t n = 0; n < 1000 && s <= to; ++n, ++s)
                lines += recordLine(w, s, traced);
            store.ingest(task, {}, benchevents::parseRecords(lines));
        }
    }
}

int option(int argc, char** argv, const char* name, int fallback)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == name)
            return std::atoi(argv[i + 1]);
    return fallback;
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication qapp(argc, argv);
    const int workers = option(argc, argv, "--workers", 64);
    const int steps = option(argc, argv, "--steps", 2000);
    const int rounds = option(argc, argv, "--rounds", 3);
    std::printf("strata-bench-timeline: %d workers, %d steps each, %s\n", workers, steps, bench::cpuName().c_str());

    // 1. Ingestion, with and without timelines, alternated.
    for (int round = 0; round < rounds; ++round)
        for (const bool traced : {false, true}) {
            app::MetricsStore store;
            QElapsedTimer clock;
            clock.start();
            feed(store, workers, 0, steps, traced);
            const double seconds = double(clock.nsecsElapsed()) / 1e9;
            std::printf("ingest %-16s round %d: %8.0f steps/s (%lld records, %.2f s)\n",
                        traced ? "with timelines" : "without", round + 1, double(workers) * steps / seconds,
                        static_cast<long long>(store.recordCount()), seconds);
        }

    // 2. What the rings keep.
    app::MetricsStore store;
    feed(store, workers, 0, steps, true);
    size_t bytes = 0, spans = 0, kept = 0;
    store.read([&](const std::vector<app::TaskData>& tasks, const std::vector<app::LogEntry>&) {
        for (const app::TaskData& td : tasks) {
            bytes += app::StepTraceRing::kKept * sizeof(app::StepTrace); // the slots
            for (size_t i = 0; i < td.traces.size(); ++i) {
                const app::StepTrace& t = td.traces.at(i);
                bytes += t.spans.capacity() * sizeof(app::TraceSpan);
                spans += t.spans.size();
            }
            kept += td.traces.size();
        }
    });
    std::printf("kept: %zu steps, %zu spans, %.2f MB (%zu bytes a span; names shared)\n", kept, spans, double(bytes) / 1e6,
                spans ? bytes / spans : 0);

    // 3. The panel's refresh.
    ui::DashboardPage page(store, nullptr, nullptr);
    page.resize(1600, 1000);
    page.show();
    page.tabs()->setCurrentWidget(page.timeline());
    QApplication::processEvents();
    ui::TimelineView* view = page.timeline();
    const benchtiming::Timing following = benchtiming::timeIt("following", 20, [&] {
        view->refresh();
        return int(view->timeline().spans.size());
    });
    view->plot()->xAxis->setRange(0, double(kStepUs) / 1000); // one step, as a zoom leaves it
    QApplication::processEvents();
    const benchtiming::Timing zoomed = benchtiming::timeIt("zoomed", 20, [&] {
        view->refresh();
        return int(view->timeline().spans.size());
    });
    for (const benchtiming::Timing& t : {following, zoomed})
        std::printf("refresh %-10s median %.2f ms, worst %.2f ms (%d spans read) %s\n", t.what.c_str(), t.medianMs, t.maxMs,
                    t.rows, benchtiming::verdict(t.maxMs < 16));
    return 0;
}
