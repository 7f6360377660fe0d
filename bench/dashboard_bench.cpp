// strata-bench-dashboard: how much the live dashboard takes before the window suffers
// (bench/README.md "Dashboard"). Runs under any Qt platform (offscreen by default).
//
//   strata-bench-dashboard [--events N] [--points N] [--series S] [--width W] [--json FILE]
//
// 1. Ingestion: the bench starts itself as the "engine" through the real JobLauncher
//    (RunController, JobLauncher's QProcess and ingest thread, the MetricsStore) and writes
//    N step events (two replicas each) to its stdout as fast as the pipe takes them, while
//    the dashboard page refreshes on the store's coalesced updates. Reported: events stored
//    per second (from launch to the store holding the last one), and the event loop's
//    stalls, measured by a 5 ms timer on the window's thread (the longest gap beyond 5 ms).
// 2. Replot: a store holding `points` loss points over `series` replica lines (the per-step
//    series beside them included in the memory figure), drawn by the dashboard's loss plot
//    at `width` pixels: SeriesPlot::refresh (reduction per pixel column + QCustomPlot replot)
//    timed over the whole run (the first reduction of it cold), the whole run following the
//    data as windows arrive (reduced again each time), zoomed views and pans.
// 3. Memory: bytes the store's series hold per stored point.

#include "app/experiment/experiment_document.h"
#include "app/launch/run_controller.h"
#include "app/metrics/metrics_store.h"
#include "app/metrics/store_lines.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/shell/dialogs.h"
#include "ui/plot/series_plot.h"

#include "bench_timing.h"
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
#include <cstring>
#include <numeric>
#include <string>
#include <unistd.h>
#include <vector>

using namespace strata;

namespace {

constexpr double kTargetEventsPerSecond = 100000;
constexpr double kTargetStallMs = 50;
constexpr double kTargetReplotMs = 16;
constexpr double kTargetBytesPerPoint = 24;
constexpr int kProbeMs = 5;

using benchevents::stepLine;
using benchtiming::verdict;

// The "engine" of part 1: hello, start, then the step events, then done.
int runEmitter(int64_t events)
{
    std::string out = R"({"v":1,"type":"hello","t":1763800000,"task":"worker:0","version":"bench","host":"bench"})"
                      "\n"
                      R"({"v":1,"type":"start","t":1763800000,"task":"worker:0","total_steps":)" +
                      std::to_string(events) + "}\n";
    for (int64_t s = 1; s <= events; ++s) {
        out += stepLine(s, 2);
        if (out.size() > (1 << 16) || s == events) {
            if (s == events)
                out += R"({"v":1,"type":"done","t":1763800100,"task":"worker:0","status":"completed","steps":)" +
                       std::to_string(events) + "}\n";
            for (size_t written = 0; written < out.size();) {
                const ssize_t n = ::write(STDOUT_FILENO, out.data() + written, out.size() - written);
                if (n <= 0)
                    return 1;
                written += size_t(n);
            }
            out.clear();
        }
    }
    return 0;
}

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
    int64_t events = 0;
    double seconds = 0, eventsPerSecond = 0, worstStallMs = 0, p99GapMs = 0;
    int dashboardRefreshes = 0;
};

IngestResult measureIngestion(int64_t events)
{
    QTemporaryDir dir;
    app::ExperimentDocument document; // the default experiment: it validates
    app::RunController run;
    ui::Dialogs dialogs;
    // The dashboard as the window shows it, refreshing on every coalesced update.
    ui::DashboardPage page(run.store(), &run, &dialogs);
    page.resize(1400, 900);
    page.show();
    IngestResult r;
    QObject::connect(&run.store(), &app::MetricsStore::updated, [&] { ++r.dashboardRefreshes; });

    StallProbe probe;
    QElapsedTimer clock;
    QEventLoop loop;
    QObject::connect(&run, &app::RunController::finished, &loop, &QEventLoop::quit);
    QString error;
    qputenv("STRATA_BENCH_EMIT", QByteArray::number(qlonglong(events)));
    probe.start();
    clock.start();
    if (!run.launch(document, QCoreApplication::applicationFilePath(), dir.path(), &error))
        qFatal("cannot start the emitter: %s", qPrintable(error));
    loop.exec();
    const double end = double(clock.nsecsElapsed()) / 1e9;
    probe.stop();
    qunsetenv("STRATA_BENCH_EMIT");
    if (run.outcome() != app::RunOutcome::Completed)
        qFatal("the emitter's run did not complete: %s", qPrintable(run.summary()));
    r.events = run.store().eventCount();
    r.seconds = end;
    r.eventsPerSecond = double(r.events) / end;
    r.worstStallMs = probe.worstStallMs();
    r.p99GapMs = probe.percentileGapMs(0.99);
    return r;
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
    std::string chunk;
    for (int64_t s = 1; s <= steps; ++s) {
        chunk += stepLine(s, series);
        if (chunk.size() > (1 << 20) || s == steps) {
            store.ingestLines("worker:0", QByteArray::fromRawData(chunk.data(), qsizetype(chunk.size())));
            chunk.clear();
        }
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
        std::string window;
        for (int k = 0; k < 50; ++k)
            window += stepLine(++next, series);
        store.ingestLines("worker:0", QByteArray::fromRawData(window.data(), qsizetype(window.size())));
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
    // The emitter of part 1 is this binary, started by the launcher as an engine.
    if (const char* emitEvents = std::getenv("STRATA_BENCH_EMIT"))
        return runEmitter(std::atoll(emitEvents));
    if (!std::getenv("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription("The live dashboard's ingestion rate, event-loop stalls, replot time and memory.");
    parser.addHelpOption();
    parser.addOption({"events", "Step events streamed in part 1.", "N", "1000000"});
    parser.addOption({"points", "Loss points held in part 2.", "N", "10000000"});
    parser.addOption({"series", "Replica lines holding them.", "S", "8"});
    parser.addOption({"width", "Plot width in pixels.", "W", "1200"});
    parser.addOption({"json", "Also write the results to this file.", "FILE"});
    parser.process(app);

    const IngestResult in = measureIngestion(parser.value("events").toLongLong());
    std::printf("Ingestion through the launcher (QProcess -> ingest thread -> MetricsStore), dashboard plot live:\n");
    std::printf("  %lld step events in %.2f s: %.0f events/s (target %.0f: %.2fx)  %s\n", (long long)in.events,
                in.seconds, in.eventsPerSecond, kTargetEventsPerSecond, in.eventsPerSecond / kTargetEventsPerSecond,
                verdict(in.eventsPerSecond >= kTargetEventsPerSecond));
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
             {{"events", in.events}, {"seconds", in.seconds}, {"events_per_second", in.eventsPerSecond},
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
