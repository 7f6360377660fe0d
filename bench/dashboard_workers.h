#pragma once
// strata-bench-dashboard --workers N: the replot part for a job of N workers (bench/README.md,
// "Dashboard"): a store holding every step of N workers (one replica each; one of them a
// straggler that computes twice as long while the others wait for it in the gradient
// reduction), the whole DashboardPage at a window's size over it, every per-worker plot drawn
// as its band with the slowest workers, the heatmap of every worker's time per step beside the
// loss. Timed: building the page (every band computed from the whole run), then each plot's
// refresh and the page's whole refresh over the whole run, while the run goes on, and zoomed.

#include <QSize>

#include <cstdint>
#include <string>
#include <vector>

namespace benchworkers {

struct Timing {
    std::string what;
    double medianMs = 0, maxMs = 0;
    double reductionMs = -1; // of the slowest: reading and reducing the lines (the rest is QCustomPlot's
                             // replot); -1: not a plot of lines
};

struct View {
    std::string name;
    std::vector<Timing> plots; // each plot's refresh (the heatmap's, where the view refreshes it)
    Timing page;               // everything the view's change cost the window's thread
};

struct Result {
    int workers = 0;
    int64_t stepsPerWorker = 0;
    int64_t points = 0; // loss points of every worker
    double fillSeconds = 0, buildMs = 0;
    std::vector<View> views;
    Timing worstPlot; // the slowest single refresh of any plot, in any view
};

Result measure(int workers, int64_t stepsPerWorker, QSize size);
void print(const Result& result, double targetMs);

} // namespace benchworkers
