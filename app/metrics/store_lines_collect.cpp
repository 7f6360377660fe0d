// StoreLines: its lines collected from the store under its lock and kept while the store holds
// the same, and many lines of one kind drawn as their band (line_band.h). The lines of each
// plot: store_lines.cpp.
#include "app/metrics/store_lines.h"

#include <functional>

namespace strata::app {

namespace {
// Where the tasks' series live and what a band waits on (StoreLines::Collected).
size_t shapeOf(const std::vector<TaskData>& tasks)
{
    size_t h = std::hash<const void*>()(tasks.data());
    const auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    mix(tasks.size());
    for (const TaskData& t : tasks) {
        mix(std::hash<const void*>()(t.replicas.data()));
        mix(t.replicas.size());
        mix(std::hash<const void*>()(t.devices.data()));
        mix(t.devices.size());
        mix(t.metrics.size());
        mix(t.evaluation.size());
        mix(t.epochs.size());
        mix(size_t(t.state));
    }
    return h;
}
} // namespace

void StoreLines::readLines(const std::function<void(const std::vector<Line>&)>& use) const
{
    // Counted before the lock: what arrives meanwhile is collected at the next read.
    Collected now{m_store.generation(), m_store.eventCount(), m_store.recordCount(), m_bands, 0};
    m_store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        now.shape = shapeOf(tasks);
        if (now != m_collected) {
            m_lines.clear();
            m_manyLines = false;
            collect(tasks, m_lines);
            m_collected = now;
        }
        use(m_lines);
    });
}

void StoreLines::setBands(bool shown)
{
    if (shown == m_bands)
        return;
    m_bands = shown;
    linesReplaced();
}

bool StoreLines::hasManyLines() const
{
    readLines([](const std::vector<Line>&) {});
    return m_manyLines;
}

bool StoreLines::banded(size_t count) const
{
    const bool many = count > size_t(kBandAboveLines);
    m_manyLines = m_manyLines || many;
    return many && m_bands;
}

StoreLines::Member StoreLines::member(const TaskData& task, const QString& name, const Series& series, double score)
{
    const bool reporting = task.state == TaskState::Starting || task.state == TaskState::Running;
    return {taskLine(task, name, series), reporting, score};
}

void StoreLines::appendMany(const QString& kind, const QString& what, const std::vector<Member>& members,
                            bool standOut, const QString& label, std::vector<Line>& out) const
{
    if (!banded(members.size())) {
        for (const Member& m : members)
            out.push_back(m.line);
        return;
    }
    if (generation() != m_bandGeneration) {
        m_bandsMade.clear();
        m_bandGeneration = generation();
    }
    LineBand& band = m_bandsMade[kind + what];
    std::vector<LineBand::Member> extended;
    extended.reserve(members.size());
    for (const Member& m : members)
        extended.push_back({m.line.name, m.line.series, m.reporting});
    band.extend(extended);
    // On the first member's clock, as the total throughput is on the first task's.
    const Line& first = members.front().line;
    const QString of = QStringLiteral(" of %1 %2").arg(members.size()).arg(what);
    const auto bandLine = [&](const QString& name, const Series& series, LineLook::Role role) {
        Line line{kind + name + of, &series, true, first.clock, first.origin};
        line.role = role;
        out.push_back(line);
    };
    bandLine(QStringLiteral("median"), band.median(), LineLook::Role::BandMedian);
    bandLine(QStringLiteral("min"), band.low(), LineLook::Role::BandLow);
    bandLine(QStringLiteral("max"), band.high(), LineLook::Role::BandHigh);
    if (!standOut)
        return;
    std::vector<double> scores;
    for (const Member& m : members)
        scores.push_back(m.score);
    for (const int i : greatest(scores, kStandOutLines)) {
        Line line = members[size_t(i)].line;
        line.name = label + QStringLiteral(": ") + line.name;
        out.push_back(line);
    }
}

} // namespace strata::app
