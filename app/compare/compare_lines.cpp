#include "app/compare/compare_lines.h"

namespace strata::app {

uint64_t CompareLines::dataGeneration() const
{
    // Generations only grow: the sum changes whenever any store is cleared.
    uint64_t sum = 0;
    for (const ComparedRun& run : m_runs)
        sum += run.store->generation();
    return sum;
}

void CompareLines::readLines(const std::function<void(const std::vector<Line>&)>& use) const
{
    std::vector<Line> lines;
    // Each store's lock is held until every run's lines are used.
    const std::function<void(size_t)> readFrom = [&](size_t run) {
        if (run == m_runs.size()) {
            use(lines);
            return;
        }
        m_runs[run].store->read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
            if (const TaskData* primary = primaryTask(tasks))
                collect(run, tasks, *primary, lines);
            readFrom(run + 1);
        });
    };
    readFrom(0);
}

CompareLines::Derived& CompareLines::derived(size_t run) const
{
    if (m_derived.size() != m_runs.size() || m_derivedGeneration != generation()) {
        m_derived.clear();
        m_derived.resize(m_runs.size());
        m_derivedGeneration = generation();
    }
    return m_derived[run];
}

void LossByStepComparison::collect(size_t run, const std::vector<TaskData>&, const TaskData& primary,
                                   std::vector<Line>& out) const
{
    out.push_back({runs()[run].label, &primary.loss});
}

void LossByTimeComparison::collect(size_t run, const std::vector<TaskData>&, const TaskData& primary,
                                   std::vector<Line>& out) const
{
    Derived& d = derived(run);
    d.next = extendLossVsWallTime(primary.loss, primary.wallSeconds, d.next, d.series);
    out.push_back({runs()[run].label, &d.series});
}

void ThroughputComparison::collect(size_t run, const std::vector<TaskData>& tasks, const TaskData& primary,
                                   std::vector<Line>& out) const
{
    if (tasks.size() == 1) {
        out.push_back({runs()[run].label, &primary.samplesPerSec});
        return;
    }
    Derived& d = derived(run);
    extendTotalThroughput(tasks, d.series);
    out.push_back({runs()[run].label, &d.series});
}

} // namespace strata::app
