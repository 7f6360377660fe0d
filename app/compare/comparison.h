#pragma once
// Comparing runs: what each run achieved, read from its MetricsStore (live, or rebuilt from
// its directory by run_replay), how it scales against a baseline run, and the comparison
// table as CSV, Markdown or aligned text. Pure functions of the stores' contents.
//
// Definitions (docs/decisions.md repeats them):
// - A run's figures come from its primary task (chief:0, else worker:0, else the first),
//   except samples/s, summed over its tasks (each worker counts the samples it trains).
// - Step windows: a live `step` event carries means over the steps since the previous one;
//   its steps are its step number minus the previous window's (the first window's: minus the
//   step training resumed from, 0 for a fresh run). Weighted by steps, window means add up
//   to exact totals.
// - Steady-state samples/s: samples over step time across the windows that begin after the
//   first `warmupFraction` (10 %) of the run's steps, i.e. Σ(samples/s·steps·step ms) /
//   Σ(steps·step ms). The first window is always warm-up (allocation, cold caches, the
//   input pipeline filling); when nothing else is left (a very short run) every window
//   counts. Step time excludes validation, evaluation and checkpoints, as the engine's
//   samples_per_sec does.
// - Step-time split: mean ms per step (step, compute, comm, input) over every window,
//   weighted by steps; communication share = Σ comm ms / Σ step ms.
// - Wall seconds: from the task's first event to its last (hello to done), the clock of
//   time to target and of loss vs wall time.
// - Time to target loss: wall seconds since the task's first event (start-up included) at
//   the end of the first window whose training loss, optionally smoothed, is at or below
//   the target. No interpolation: the loss is only known per window.
// - Scaling against a baseline run: speedup = samples/s(run) / samples/s(baseline);
//   efficiency = speedup / (replicas(run) / replicas(baseline)), 1.0 being linear scaling in
//   the devices doing the work. It is bench/README.md's "speedup / cores used" with one
//   device per replica (the seed documents, tf.distribute guides, give no formula). Default
//   baseline: the first OneDevice or Default run, else the first run.
// - Stragglers: the store's (stragglers.h: a worker's time per step at least 1.5x the other
//   workers' median over three buckets in a row of ~20 of its steps), live or rebuilt alike.

#include "app/metrics/metrics_store.h"
#include "app/metrics/step_split.h"
#include "app/metrics/stragglers.h"
#include "app/metrics/run_outcome.h"
#include "app/metrics/store_lines.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace strata::app {

// A run to compare: its store and the name it is shown by (distinct among the runs).
struct ComparedRun {
    const MetricsStore* store = nullptr;
    QString label;
};

struct FinalMetrics {
    std::optional<double> loss, accuracy;
};

struct RunSummary {
    QString label;
    QString strategy;      // as trained (`placement`, else `start`)
    int replicas = 0;      // in sync (`start`)
    int64_t globalBatch = 0;
    TaskState state = TaskState::Starting;
    int64_t steps = 0;
    std::optional<double> wallSeconds;
    FinalMetrics train, validation, test; // `done`, else the last epoch (test: `done` only)
    std::optional<double> samplesPerSec;  // steady state, all tasks
    std::optional<StepSplit> split;
    std::optional<double> commShare;      // 0..1
    std::optional<double> timeToTarget;   // seconds; none: no target, or never reached
    // The tasks that compute steps, and the stretches of those that were stragglers (the store's,
    // stragglers.h); none can be with fewer than two workers.
    int workers = 0;
    std::vector<Straggler> stragglers;
};

struct CompareOptions {
    std::optional<double> targetLoss;
    Smoothing targetSmoothing; // applied to the training loss before looking for the target
    double warmupFraction = 0.1;
    int baseline = -1; // index into the runs; -1: defaultBaseline()
};

std::optional<double> steadySamplesPerSec(const TaskData& task, double warmupFraction);
std::optional<StepSplit> meanStepSplit(const TaskData& task);
std::optional<double> commShare(const StepSplit& split);
// Seconds of `wallSeconds` (x: step) at the first point of `loss` (x: step), smoothed as
// `smoothing` says, that is at or below `target`; none when it never is.
std::optional<double> timeToLoss(const Series& loss, const Series& wallSeconds, double target,
                                 const Smoothing& smoothing = {});
// Appends to `out` the points of `loss` from index `from` on with their step mapped to the
// wall seconds of that step (a step without a time is left out); returns where to continue.
int64_t extendLossVsWallTime(const Series& loss, const Series& wallSeconds, int64_t from, Series& out);

// From the tasks alone (no stragglers: they are the store's); from the store, with them.
RunSummary summarizeRun(const std::vector<TaskData>& tasks, const QString& label, const CompareOptions& options);
RunSummary summarizeRun(const ComparedRun& run, const CompareOptions& options);
// The table's cell: "worker:2 2.9x, worker:5 1.8x" (each straggler at the worst of its stretches),
// "none", or empty when the run has fewer than two workers.
QString stragglersCell(const RunSummary& run);

struct Scaling {
    double speedup = 0, efficiency = 0;
};
// None when either run lacks samples/s or replicas.
std::optional<Scaling> scalingAgainst(const RunSummary& run, const RunSummary& baseline);
// The first OneDevice or Default run, else 0.
int defaultBaseline(const std::vector<RunSummary>& runs);

// The comparison table: one record per run, with its scaling against the baseline.
struct ComparisonTable {
    std::vector<RunSummary> runs;
    std::vector<std::optional<Scaling>> scaling; // per run
    int baseline = 0;
    std::optional<double> targetLoss;

    // Column names, then the cells of run `run` in that order ("" where a figure is unknown;
    // "not reached" for a target loss never reached).
    QStringList header() const;
    QStringList cells(int run) const;
    // What a cell does not say, in the cells' order ("" for most): each straggler's stretches in
    // full (stretchText), a line each.
    QStringList tips(int run) const;
};

ComparisonTable compareRuns(const std::vector<ComparedRun>& runs, const CompareOptions& options);
ComparisonTable compareSummaries(std::vector<RunSummary> runs, const CompareOptions& options);

// CSV: a header row, then one row per run (RFC 4180 quoting).
QString tableCsv(const ComparisonTable& table);
// Markdown and aligned text: one column per run, a row per figure ("-" where unknown), so
// that many figures of a few runs read down the page.
QString tableMarkdown(const ComparisonTable& table);
QString tableText(const ComparisonTable& table);
// Writes `text` (UTF-8) atomically; false with the reason, naming the file.
bool writeTextFile(const QString& path, const QString& text, QString* error);

} // namespace strata::app
