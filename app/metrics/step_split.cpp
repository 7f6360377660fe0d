#include "app/metrics/step_split.h"

#include "app/metrics/job_roles.h"

#include <algorithm>

namespace strata::app {

namespace {
// The mean of the last `n` points of `s` (0 when it has none).
double recentMean(const Series& s, int n)
{
    const int64_t from = std::max<int64_t>(0, s.size() - n);
    double sum = 0;
    for (int64_t i = from; i < s.size(); ++i)
        sum += double(s.y(i));
    return s.size() > from ? sum / double(s.size() - from) : 0;
}
} // namespace

QList<TaskStepSplit> recentStepSplits(const MetricsStore& store, int windows)
{
    QList<TaskStepSplit> out;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        for (const TaskData* t : computingTasks(tasks)) {
            if (t->stepMs.empty())
                continue;
            out << TaskStepSplit{t->task, {recentMean(t->stepMs, windows), recentMean(t->computeMs, windows),
                                           recentMean(t->commMs, windows), recentMean(t->inputMs, windows)}};
        }
    });
    return out;
}

QList<TaskStepSplit> slowestOwn(QList<TaskStepSplit> splits, int count)
{
    const auto own = [](const TaskStepSplit& t) { return t.split.stepMs - t.split.commMs; };
    std::stable_sort(splits.begin(), splits.end(), [&](const TaskStepSplit& a, const TaskStepSplit& b) { return own(a) > own(b); });
    splits.resize(std::clamp<qsizetype>(count, 0, splits.size()));
    return splits;
}

} // namespace strata::app
