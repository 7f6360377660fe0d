// strata-bench-dashboard: how much the live dashboard takes before the window suffers
// (bench/README.md "Dashboard"). Runs under any Qt platform (offscreen by default).
//
//   strata-bench-dashboard [--steps N] [--points N] [--series S] [--width W] [--json FILE]
//   strata-bench-dashboard --workers N [--worker-steps N] [--window WxH] [--json FILE]
//
// 1. Ingestion: the bench starts strata-bench-emitter (dashboard_emitter.cpp) as each task's
//    "engine" through the real JobLauncher (RunController, JobLauncher's QProcess and ingest
//    thread, the MetricsStore) and trains N steps (two replicas each) as fast as the pipe takes
//    them: each step's record appended to its steps-worker-0.jsonl, a step event (the window of
//    10 steps) to its stdout, the records before the events that follow them, as the engine
//    writes them; while the dashboard page (shown and painted before the launch, as the
//    window is when Launch is pressed) refreshes on the store's coalesced updates. Reported:
//    steps stored per second (from launch to the store holding the last one: every step, from
//    its record), and the event loop's stalls from the launch's return on, measured by a 5 ms
//    timer on the window's thread (the longest gap beyond 5 ms).
// 2. Replot: a store holding `points` loss points over `series` replica lines, every step
//    from its record (the per-step series beside them included in the memory figure), drawn
//    by the dashboard's loss plot
//    at `width` pixels: SeriesPlot::refresh (reduction per pixel column + QCustomPlot replot)
//    timed over the whole run (the first reduction of it cold), the whole run following the
//    data as windows arrive (reduced again each time), zoomed views and pans.
// 3. Memory: bytes the store's series hold per stored point.
// With --workers, instead: the dashboard of a job of N workers replotted (dashboard_workers.h).

#include "app/experiment/experiment_document.h"
#include "app/launch/run_controller.h"
#include "app/metrics/event_parse.h"
#include "app/metrics/metrics_store.h"
#include "app/metrics/store_lines.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/shell/dialogs.h"
#include "ui/plot/series_plot.h"

#include "bench_timing.h"
#include "dashboard_workers.h"
#include "parsed_events.h"
#include "synthetic_events.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

using namespace strata;

namespace {

constexpr double kTargetStepsPerSecond = 100000;
constexpr double kTargetStallMs = 50;
constexpr double kTargetReplotMs = 16;
constexpr double kTargetBytesPerPoint = 24;
constexpr int kProbeMs = 5;

using benchevents::parseEvents;
using benchevents::parseRecords;
using benchevents::kStepsPerWindow;
using benchevents::recordLine;
using benchevents::stepLine;
using benchtiming::verdict;

// The longest gap of a kProbeMs timer beyond its interval: how long the loop was blocked.
class StallProbe {
public:
    StallProbe()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const double now = double(m_clock.nsecsElapsed()) / 1e6;
            m_worst = std::max(m_worst, now - m_last - kProbeMs);
            m_gaps.push_back(now - m_last);
            m_last = now;
        });
    }
    void start()
    {
        m_clock.start();
        m_last = 0;
        m_worst = 0;
        m_gaps.clear();
        m_timer.start(kProbeMs);
    }
    void stop() { m_timer.stop(); }
    double worstStallMs() const { return std::max(m_worst, 0.0); }
    double percentileGapMs(double p) const
    {
        if (m_gaps.empty())
            return 0;
        std::vector<double> g = m_gaps;
        std::sort(g.begin(), g.end());
        return g[std::min(g.size() - 1, size_t(p * double(g.size())))];
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    double m_last = 0, m_worst = 0;
    std::vector<double> m_gaps;
};

struct IngestResult {
    int64_t steps = 0, events = 0;
    double seconds = 0, stepsPerSecond = 0, worstStallMs = 0, p99GapMs = 0;
    int dashboardRefreshes = 0;
    int64_t points = 0; // what the store holds at the end, and its series' bytes
    size_t seriesBytes = 0;
};

// `steps` in all, from `tasks` emitters at once (a job of that many local workers).
IngestResult measureIngestion(int64_t steps, int tasks = 1)
{
    QTemporaryDir dir;
    app::ExperimentDocument document; // the default experiment: it validates
    if (tasks > 1) {
        app::Json e = document.json();
        e["strategy"] = {{"type", "MultiWorkerMirrored"}};
        e["cluster"] = {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
                        {"tasks", {{{"type", "worker"}, {"node", "local"}, {"count", tasks}}}}};
        document.replace(e, "bench");
    }
    steps -= steps % tasks;
    app::RunController run;
    ui::Dialogs dialogs;
    // The dashboard as the window shows it, refreshing on every coalesced update.
    ui::DashboardPage page(run.store(), &run, &dialogs);
    page.resize(1400, 900);
    page.show();
    QCoreApplication::processEvents();
    IngestResult r;
    QObject::connect(&run.store(), &app::MetricsStore::updated, [&] { ++r.dashboardRefreshes; });

    StallProbe probe;
    QElapsedTimer clock;
    QEventLoop loop;
    QObject::connect(&run, &app::RunController::finished, &loop, &QEventLoop::quit);
    QString error;
    // The emitter stands in for the engine of each task.
    qputenv("STRATA_BENCH_EMIT", QByteArray::number(qlonglong(steps / tasks)));
    clock.start();
    if (!run.launch(document, QCoreApplication::applicationDirPath() + "/strata-bench-emitter", dir.path(), &error))
        qFatal("cannot start the emitter: %s", qPrintable(error));
    probe.start();
    loop.exec();
    const double end = double(clock.nsecsElapsed()) / 1e9;
    probe.stop();
    qunsetenv("STRATA_BENCH_EMIT");
    if (run.outcome() != app::RunOutcome::Completed)
        qFatal("the emitter's run did not complete: %s", qPrintable(run.summary()));
    r.steps = run.store().recordCount();
    r.events = run.store().eventCount();
    if (r.steps != steps)
        qFatal("the store holds %lld steps of %lld", (long long)r.steps, (long long)steps);
    r.seconds = end;
    r.stepsPerSecond = double(r.steps) / end;
    r.worstStallMs = probe.worstStallMs();
    r.p99GapMs = probe.percentileGapMs(0.99);
    r.points = run.store().pointCount();
    r.seriesBytes = run.store().seriesBytes();
    return r;
}

// Part 1 again for jobs of each size in `streams`, the same steps in all: the steps stored per
// second, the stalls, and the store's memory at the end (the last, largest job's is that of a
// long run of that many workers).
nlohmann::ordered_json measureIngestionScale(int64_t steps, const QList<int>& streams)
{
    std::printf("Ingestion against the workers streaming (%lld steps in all, each worker's records and windows):\n"
                "| workers | steps stored per second | longest stall (ms) | points held | series bytes | bytes per point |\n"
                "|---|---|---|---|---|---|\n",
                (long long)steps);
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const int n : streams) {
        const IngestResult r = measureIngestion(steps, n);
        std::printf("| %d | %.0f | %.1f | %lld | %.1f MB | %.2f |\n", n, r.stepsPerSecond, r.worstStallMs,
                    (long long)r.points, double(r.seriesBytes) / 1e6, double(r.seriesBytes) / double(r.points));
        std::fflush(stdout);
        rows.push_back({{"workers", n}, {"steps", r.steps}, {"steps_per_second", r.stepsPerSecond},
                        {"longest_stall_ms", r.worstStallMs}, {"points", r.points}, {"series_bytes", r.seriesBytes}});
    }
    return rows;
}

struct ReplotResult {
    int64_t points = 0;
    double fillSeconds = 0;
    double bytesPerPoint = 0;
    double medianMs = 0, meanMs = 0, maxMs = 0;
    int replots = 0;
    int drawn = 0;
    struct View {
        std::string name;
        double minMs = 0, medianMs = 0, maxMs = 0;
        double reductionMs = 0; // of the slowest
    };
    std::vector<View> views;
};

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

ReplotResult measureReplot(int64_t points, int series, int width)
{
    app::MetricsStore store;
    ReplotResult r;
    const int64_t steps = points / series;
    QElapsedTimer fill;
    fill.start();
    // Every step from its record, a window every kStepsPerWindow, as the launcher hands them over.
    std::string records, windows = R"({"v":1,"type":"hello","t":1763800000,"task":"worker:0"})"
                                   "\n";
    const auto ingest = [&] {
        store.ingest("worker:0", parseEvents(windows), parseRecords(records));
        records.clear();
        windows.clear();
    };
    for (int64_t s = 1; s <= steps; ++s) {
        records += recordLine(s, series);
        if (s % kStepsPerWindow == 0)
            windows += stepLine(s, series);
        if (records.size() > (1 << 20) || s == steps)
            ingest();
    }
    r.fillSeconds = double(fill.nsecsElapsed()) / 1e9;
    app::ReplicaLossLines lines(store);
    int64_t linePoints = 0;
    for (int i = 0; i < lines.lineCount(); ++i)
        linePoints += lines.pointCount(i);
    r.points = linePoints;
    r.bytesPerPoint = double(store.seriesBytes()) / double(store.pointCount());

    ui::SeriesPlot plot;
    plot.setTitle("Loss per replica");
    plot.setAxisLabels("step", "loss");
    plot.setSource(&lines);
    plot.resize(width, width / 2);
    plot.show();
    QCoreApplication::processEvents();

    std::vector<double> all;
    // `setView` returns whether it moved the view: the plot then refreshed itself, as for a
    // user's pan or zoom, and that refresh is the one timed; else refresh() is called.
    auto time = [&](const std::string& view, int repeats, auto&& setView) {
        ReplotResult::View v{view};
        std::vector<double> times;
        for (int i = 0; i < repeats; ++i) {
            if (!setView(i))
                plot.refresh();
            if (plot.lastRefreshMs() >= v.maxMs) {
                v.maxMs = plot.lastRefreshMs();
                v.reductionMs = plot.lastReductionMs();
            }
            times.push_back(plot.lastRefreshMs());
            all.push_back(plot.lastRefreshMs());
            r.drawn = std::max(r.drawn, plot.drawnPoints());
        }
        v.minMs = *std::min_element(times.begin(), times.end());
        v.medianMs = median(times);
        r.views.push_back(v);
    };
    QCPAxis* x = plot.plot()->xAxis;
    const double n = double(steps);
    time("whole run (following the data)", 20, [](int) { return false; });
    // A window of steps arrives before each refresh: the view moves, every line is reduced again.
    int64_t next = steps;
    time("whole run, the run going on", 20, [&](int) {
        for (int k = 0; k < 50; ++k) {
            records += recordLine(++next, series);
            if (next % kStepsPerWindow == 0)
                windows += stepLine(next, series);
        }
        ingest();
        return false;
    });
    const auto pan = [&](double lower, double span) {
        x->setRange(lower, lower + span);
        return true;
    };
    time("zoomed to 10%, panning", 20, [&](int i) { return pan(n * 0.04 * i, n * 0.1); });
    time("zoomed to 0.1%, panning", 20, [&](int i) { return pan(n * 0.045 * i, n * 0.001); });
    time("zoomed to 100 steps", 20, [&](int i) { return pan(n * 0.04 * i + 1, 100); });
    r.replots = int(all.size());
    r.medianMs = median(all);
    r.meanMs = std::accumulate(all.begin(), all.end(), 0.0) / double(all.size());
    r.maxMs = *std::max_element(all.begin(), all.end());
    return r;
}

} // namespace

int main(int argc, char** argv)
{
    if (!std::getenv("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription("The live dashboard's ingestion rate, event-loop stalls, replot time and memory.");
    parser.addHelpOption();
    parser.addOption({"steps", "Steps trained in part 1 (a record each, a step event every 10).", "N", "1000000"});
    parser.addOption({"points", "Loss points held in part 2.", "N", "10000000"});
    parser.addOption({"series", "Replica lines holding them.", "S", "8"});
    parser.addOption({"width", "Plot width in pixels.", "W", "1200"});
    parser.addOption({"streams", "Instead: part 1 for jobs of each of these numbers of workers (the --steps shared "
                                 "among them), and the store's memory at the end.", "LIST"});
    parser.addOption({"json", "Also write the results to this file.", "FILE"});
    parser.addOption({"workers", "Instead: the replot of a job of N workers' dashboard (bands and heatmap).", "N"});
    parser.addOption({"worker-steps", "With --workers: the steps of each worker.", "N", "20000"});
    parser.addOption({"window", "With --workers: the page's size.", "WxH", "1600x1000"});
    parser.process(app);
    if (parser.isSet("streams")) {
        QList<int> streams;
        for (const QString& n : parser.value("streams").split(','))
            streams << std::max(1, n.toInt());
        const nlohmann::ordered_json rows = measureIngestionScale(parser.value("steps").toLongLong(), streams);
        if (parser.isSet("json")) {
            QFile f(parser.value("json"));
            if (f.open(QIODevice::WriteOnly))
                f.write(QByteArray::fromStdString(nlohmann::ordered_json{{"ingestion_scale", rows}}.dump(2) + "\n"));
        }
        return 0;
    }

    if (parser.isSet("workers")) {
        const QStringList size = parser.value("window").split('x');
        const benchworkers::Result r =
            benchworkers::measure(parser.value("workers").toInt(), parser.value("worker-steps").toLongLong(),
                                  QSize(size.value(0).toInt(), size.value(1).toInt()));
        benchworkers::print(r, kTargetReplotMs);
        if (parser.isSet("json")) {
            nlohmann::ordered_json views = nlohmann::ordered_json::array();
            for (const benchworkers::View& v : r.views) {
                nlohmann::ordered_json plots;
                for (const benchworkers::Timing& t : v.plots)
                    plots[t.what] = {{"median_ms", t.medianMs}, {"max_ms", t.maxMs}};
                views.push_back({{"view", v.name}, {"page_median_ms", v.page.medianMs}, {"page_max_ms", v.page.maxMs},
                                 {"plots", plots}});
            }
            const nlohmann::ordered_json j{{"workers", r.workers}, {"steps_per_worker", r.stepsPerWorker},
                                           {"build_ms", r.buildMs}, {"views", views},
                                           {"worst_plot_ms", r.worstPlot.maxMs}, {"worst_plot", r.worstPlot.what}};
            QFile f(parser.value("json"));
            if (f.open(QIODevice::WriteOnly))
                f.write(QByteArray::fromStdString(j.dump(2) + "\n"));
        }
        return 0;
    }

    const IngestResult in = measureIngestion(parser.value("steps").toLongLong());
    std::printf("Ingestion through the launcher (QProcess + steps file -> ingest thread -> MetricsStore), dashboard "
                "plot live:\n");
    std::printf("  %lld steps (their records, and %lld events) in %.2f s: %.0f steps/s (target %.0f: %.2fx)  %s\n",
                (long long)in.steps, (long long)in.events, in.seconds, in.stepsPerSecond, kTargetStepsPerSecond,
                in.stepsPerSecond / kTargetStepsPerSecond, verdict(in.stepsPerSecond >= kTargetStepsPerSecond));
    std::printf("  event loop: longest stall %.1f ms (target under %.0f ms)  %s; 99th percentile gap of a %d ms "
                "timer %.1f ms; %d plot refreshes\n",
                in.worstStallMs, kTargetStallMs, verdict(in.worstStallMs < kTargetStallMs), kProbeMs, in.p99GapMs,
                in.dashboardRefreshes);

    const ReplotResult rp = measureReplot(parser.value("points").toLongLong(), parser.value("series").toInt(),
                                          parser.value("width").toInt());
    std::printf("\nReplot of the loss plot: %lld points over %d lines, %d px wide (store filled in %.1f s):\n",
                (long long)rp.points, parser.value("series").toInt(), parser.value("width").toInt(), rp.fillSeconds);
    for (const ReplotResult::View& v : rp.views)
        std::printf("  %-34s min %6.2f  median %6.2f  worst %6.2f ms (of which reducing %.2f)\n", v.name.c_str(),
                    v.minMs, v.medianMs, v.maxMs, v.reductionMs);
    std::printf("  all %d replots: median %.2f ms, mean %.2f ms, worst %.2f ms (target under %.0f ms: %.2fx)  %s; at "
                "most %d points drawn\n",
                rp.replots, rp.medianMs, rp.meanMs, rp.maxMs, kTargetReplotMs, kTargetReplotMs / rp.maxMs,
                verdict(rp.maxMs < kTargetReplotMs), rp.drawn);
    std::printf("\nMemory: %.2f bytes per stored point, all series of the store (target at most %.0f)  %s\n",
                rp.bytesPerPoint, kTargetBytesPerPoint, verdict(rp.bytesPerPoint <= kTargetBytesPerPoint));

    if (parser.isSet("json")) {
        nlohmann::ordered_json j{
            {"ingestion",
             {{"steps", in.steps}, {"events", in.events}, {"seconds", in.seconds}, {"steps_per_second", in.stepsPerSecond},
              {"worst_stall_ms", in.worstStallMs}, {"p99_gap_ms", in.p99GapMs}, {"refreshes", in.dashboardRefreshes}}},
            {"replot",
             {{"points", rp.points}, {"series", parser.value("series").toInt()}, {"median_ms", rp.medianMs},
              {"mean_ms", rp.meanMs}, {"max_ms", rp.maxMs}, {"replots", rp.replots}}},
            {"bytes_per_point", rp.bytesPerPoint}};
        QFile f(parser.value("json"));
        if (f.open(QIODevice::WriteOnly))
            f.write(QByteArray::fromStdString(j.dump(2) + "\n"));
    }
    return 0;
}
