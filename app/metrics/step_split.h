#pragma once
// Where a step's time goes, in numbers. Now: for each task that computes steps, the mean over
// its latest windows of compute, gradient reduction, input wait and the rest of the step (the
// optimizer, bookkeeping), in ms per step. Recent windows, not the whole run, so one slow first
// step (the caches warming up) does not hide what a step costs.

#include "app/metrics/metrics_store.h"

#include <QList>
#include <QString>

#include <algorithm>

namespace strata::app {

// ms per step (a mean over some windows; Compare's over a whole run, app/compare).
struct StepSplit {
    double stepMs = 0, computeMs = 0, commMs = 0, inputMs = 0;
    double otherMs() const { return std::max(0.0, stepMs - computeMs - commMs - inputMs); }
};

struct TaskStepSplit {
    QString task;
    StepSplit split;
};

// `windows`: how many of each task's latest step windows are averaged.
QList<TaskStepSplit> recentStepSplits(const MetricsStore& store, int windows = 10);

// The `count` of `splits` slowest by their own time per step, slowest first: the step less its
// gradient reduction, where a synchronous job's workers all wait for the slowest (so that
// their whole steps are alike); ties in the order given.
QList<TaskStepSplit> slowestOwn(QList<TaskStepSplit> splits, int count);

} // namespace strata::app
