#pragma once
// The comparison's plots over several runs' MetricsStores: one line per run, named by the
// run's label, from its primary task (comparison.h): loss vs step, loss vs wall seconds,
// samples/s vs step (a run's tasks summed). (The step-time split is compared as each run's
// means, RunSummary::split.)
// Smoothing as on the dashboard (SeriesLines).
//
// Threads: call from the stores' thread; a read holds every store's lock at once, taken in
// the runs' order (nothing else holds two).

#include "app/compare/comparison.h"
#include "app/metrics/store_lines.h"

#include <vector>

namespace strata::app {

class CompareLines : public SeriesLines {
public:
    // Labels must be distinct (lines, and their smoothed copies, are known by name).
    explicit CompareLines(std::vector<ComparedRun> runs) : m_runs(std::move(runs)) {}
    const std::vector<ComparedRun>& runs() const { return m_runs; }

protected:
    // Run `run`'s lines (called under its store's lock, with its primary task).
    virtual void collect(size_t run, const std::vector<TaskData>& tasks, const TaskData& primary,
                         std::vector<Line>& out) const = 0;

    // A series derived from run `run`'s (extended as the store grows, emptied when any store
    // is cleared for a new run); `next`: where the derivation continues.
    struct Derived {
        Series series;
        int64_t next = 0;
    };
    Derived& derived(size_t run) const;

private:
    uint64_t dataGeneration() const final;
    void readLines(const std::function<void(const std::vector<Line>&)>& use) const final;

    std::vector<ComparedRun> m_runs;
    mutable std::vector<Derived> m_derived;
    mutable uint64_t m_derivedGeneration = 0;
};

// Training loss (mean of the window) against the step.
class LossByStepComparison final : public CompareLines {
public:
    using CompareLines::CompareLines;

protected:
    void collect(size_t run, const std::vector<TaskData>& tasks, const TaskData& primary,
                 std::vector<Line>& out) const override;
};

// Training loss against wall seconds since the run's first event.
class LossByTimeComparison final : public CompareLines {
public:
    using CompareLines::CompareLines;

protected:
    void collect(size_t run, const std::vector<TaskData>& tasks, const TaskData& primary,
                 std::vector<Line>& out) const override;
};

// Samples per second against the step; a run of several tasks: their total.
class ThroughputComparison final : public CompareLines {
public:
    using CompareLines::CompareLines;

protected:
    void collect(size_t run, const std::vector<TaskData>& tasks, const TaskData& primary,
                 std::vector<Line>& out) const override;
};

} // namespace strata::app
