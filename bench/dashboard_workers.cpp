// strata-bench-dashboard --workers N: the dashboard of a job of many workers, replotted.
#include "dashboard_workers.h"

#include "bench_timing.h"
#include "parsed_events.h"
#include "synthetic_events.h"

#include "app/metrics/metrics_store.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/dashboard/worker_heatmap_view.h"
#include "ui/plot/series_plot.h"

#include <qcustomplot.h>

#include <QCoreApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>

using namespace strata;

namespace benchworkers {

namespace {

using D = ui::DashboardPage;
constexpr int kStraggler = 17; // or the last worker, in a job of fewer

int stragglerOf(int workers)
{
    return std::min(kStraggler, workers - 1);
}
constexpr int64_t kStepsPerWindow = 10;

std::string taskOf(int worker)
{
    return "worker:" + std::to_string(worker);
}

// Steps (from, to] of every worker: each step's record, a `step` window every 10 steps and a
// device report every 100, handed over as the launcher does (a batch of events and records).
void feed(app::MetricsStore& store, int workers, int64_t from, int64_t to)
{
    for (int w = 0; w < workers; ++w) {
        const std::string task = taskOf(w);
        const bool slow = w == stragglerOf(workers);
        const double offset = w / 1000.0;
        std::string records, events;
        if (from == 0)
            events = R"({"v":1,"type":"hello","t":1763800000,"task":")" + task + R"("})" "\n";
        const auto ingest = [&] {
            store.ingest(QString::fromStdString(task), benchevents::parseEvents(events), benchevents::parseRecords(records));
            records.clear();
            events.clear();
        };
        for (int64_t s = from + 1; s <= to; ++s) {
            records += benchevents::recordLine(s, 1, offset, slow ? 2.8 : 1.4, slow ? 0.1 : 1.5);
            if (s % kStepsPerWindow == 0)
                events += benchevents::stepLine(s, 1, task, offset, slow ? 10000 : 20000);
            if (s % 100 == 0)
                events += benchevents::deviceLine(s, task, slow ? 0.95 : 0.5, 50e6 + w * 1e5);
            if (records.size() > (1 << 20))
                ingest();
        }
        ingest();
    }
}

const std::vector<std::pair<D::PlotKind, std::string>> kPlots{
    {D::LossPlot, "loss"},           {D::AccuracyPlot, "accuracy"},    {D::ThroughputPlot, "throughput"},
    {D::StepTimePlot, "step time"}, {D::UtilizationPlot, "utilization"}, {D::MemoryPlot, "memory"}};

// `ms`: each refresh's time and how much of it was the reduction.
Timing summary(const std::string& what, std::vector<std::pair<double, double>> ms)
{
    std::sort(ms.begin(), ms.end());
    return {what, ms.empty() ? 0 : ms[ms.size() / 2].first, ms.empty() ? 0 : ms.back().first,
            ms.empty() ? 0 : ms.back().second};
}

} // namespace

Result measure(int workers, int64_t stepsPerWorker, QSize size)
{
    Result r;
    r.workers = workers;
    r.stepsPerWorker = stepsPerWorker;
    app::MetricsStore store;
    QElapsedTimer clock;
    clock.start();
    feed(store, workers, 0, stepsPerWorker);
    r.fillSeconds = double(clock.nsecsElapsed()) / 1e9;
    r.points = int64_t(workers) * stepsPerWorker;

    // Built hidden, the page reads every plot once: each band computed over the whole run.
    clock.restart();
    D page(store, nullptr, nullptr);
    r.buildMs = double(clock.nsecsElapsed()) / 1e6;
    page.resize(size);
    page.show();
    QCoreApplication::processEvents(); // laid out, each plot refreshed at its size
    if (!page.workerHeatmap()->isVisible())
        qFatal("the heatmap is not shown for %d workers", workers);

    QCPAxis* x = page.plot(D::LossPlot)->plot()->xAxis;
    const double n = double(stepsPerWorker);
    int64_t steps = stepsPerWorker;
    // `change` moves the view (the linked plots refresh themselves, as for a user's zoom) or
    // refreshes the page; timed with every plot's refresh it caused.
    const auto time = [&](const std::string& name, int repeats, bool heatmap, const std::function<void(int)>& change) {
        std::map<std::string, std::vector<std::pair<double, double>>> plots;
        std::vector<std::pair<double, double>> pageMs;
        for (int i = 0; i < repeats; ++i) {
            // What is left to paint of the last change painted first, else the first plot to
            // repaint would pay for every widget (the task table of 64 rows).
            page.repaint();
            QElapsedTimer t;
            t.start();
            change(i);
            pageMs.push_back({double(t.nsecsElapsed()) / 1e6, 0});
            for (const auto& [kind, plot] : kPlots)
                plots[plot].push_back({page.plot(kind)->lastRefreshMs(), page.plot(kind)->lastReductionMs()});
            if (heatmap)
                plots["heatmap"].push_back({page.workerHeatmap()->lastRefreshMs(), -1}); // no lines to reduce
        }
        View v{name, {}, summary("page", pageMs)};
        for (const auto& [kind, plot] : kPlots)
            v.plots.push_back(summary(plot, plots[plot]));
        if (heatmap)
            v.plots.push_back(summary("heatmap", plots["heatmap"]));
        for (const Timing& t : v.plots)
            if (t.maxMs > r.worstPlot.maxMs)
                r.worstPlot = {t.what + ", " + name, t.medianMs, t.maxMs};
        r.views.push_back(v);
    };
    time("whole run (following the data)", 20, true, [&](int) { page.refresh(); });
    time("whole run, the run going on", 20, true, [&](int) {
        feed(store, workers, steps, steps + kStepsPerWindow);
        steps += kStepsPerWindow;
        page.refresh();
    });
    time("zoomed to 10%, panning", 20, false, [&](int i) { x->setRange(n * 0.04 * i, n * 0.04 * i + n * 0.1); });
    time("zoomed to 100 steps", 20, false, [&](int i) { x->setRange(n * 0.04 * i + 1, n * 0.04 * i + 101); });
    return r;
}

void print(const Result& r, double targetMs)
{
    std::printf("\nReplot of the dashboard of %d workers (every step of each: %lld loss points in all; worker:%d a "
                "straggler), every per-worker plot a band; store filled in %.1f s, page built in %.1f ms (every band "
                "computed over the whole run):\n",
                r.workers, (long long)r.points, stragglerOf(r.workers), r.fillSeconds, r.buildMs);
    for (const View& v : r.views) {
        std::printf("  %s: the page %.2f ms median, %.2f worst\n", v.name.c_str(), v.page.medianMs, v.page.maxMs);
        for (const Timing& t : v.plots) {
            std::printf("    %-12s median %6.2f  worst %6.2f ms", t.what.c_str(), t.medianMs, t.maxMs);
            if (t.reductionMs >= 0)
                std::printf(" (of which reducing %.2f)", t.reductionMs);
            std::printf("\n");
        }
    }
    std::printf("  slowest refresh of one plot: %.2f ms (%s; target under %.0f ms: %.2fx)  %s\n", r.worstPlot.maxMs,
                r.worstPlot.what.c_str(), targetMs, targetMs / r.worstPlot.maxMs,
                benchtiming::verdict(r.worstPlot.maxMs < targetMs));
}

} // namespace benchworkers
