#include "app/compare/comparison_session.h"

#include "app/compare/run_colours.h"

namespace strata::app {

namespace {
// In PlotKind order.
std::vector<std::unique_ptr<SeriesLines>> makeLines(const std::vector<ComparedRun>& runs, const Smoothing& smoothing)
{
    std::vector<std::unique_ptr<SeriesLines>> lines;
    lines.push_back(std::make_unique<LossByStepComparison>(runs));
    lines.push_back(std::make_unique<LossByTimeComparison>(runs));
    lines.push_back(std::make_unique<ThroughputComparison>(runs));
    for (auto& l : lines)
        l->setSmoothing(smoothing);
    return lines;
}
} // namespace

ComparisonSession::ComparisonSession(QObject* parent) : QObject(parent)
{
    clear();
}

ComparisonSession::~ComparisonSession() = default;

bool ComparisonSession::load(const QStringList& dirs, const QStringList& labels, QString* error,
                             const QList<qint64>& historyIds)
{
    std::vector<LoadedRun> runs;
    if (!loadRuns(dirs, runs, error, labels))
        return false;
    // The lines read the old stores until they are replaced: replace them first.
    std::vector<ComparedRun> compared;
    std::vector<Json> experiments;
    std::vector<quint64> keys;
    for (size_t i = 0; i < runs.size(); ++i) {
        compared.push_back({runs[i].store.get(), runs[i].label});
        experiments.push_back(runs[i].experiment);
        keys.push_back(runColourKey(historyIds.value(qsizetype(i)), runs[i].dir));
    }
    m_lines = makeLines(compared, m_smoothing);
    m_colourSlots = runColourSlots(keys);
    m_runs = std::move(runs);
    m_differences = experimentDifferences(experiments);
    if (m_options.baseline >= runCount())
        m_options.baseline = -1;
    recompute();
    Q_EMIT runsChanged();
    return true;
}

void ComparisonSession::clear()
{
    m_lines = makeLines({}, m_smoothing);
    m_runs.clear();
    m_differences.clear();
    m_colourSlots.clear();
    m_options.baseline = -1;
    recompute();
    Q_EMIT runsChanged();
}

QStringList ComparisonSession::labels() const
{
    QStringList out;
    for (const LoadedRun& run : m_runs)
        out << run.label;
    return out;
}

void ComparisonSession::setTargetLoss(std::optional<double> target)
{
    m_options.targetLoss = target;
    recompute();
}

void ComparisonSession::setBaseline(int run)
{
    m_options.baseline = run >= 0 && run < runCount() ? run : -1;
    recompute();
}

void ComparisonSession::setSmoothing(const Smoothing& smoothing)
{
    m_smoothing = smoothing;
    for (auto& l : m_lines)
        l->setSmoothing(smoothing);
}

QString ComparisonSession::report(ReportFormat format) const
{
    return comparisonReport(m_runs, m_options, format);
}

void ComparisonSession::recompute()
{
    std::vector<ComparedRun> compared;
    for (const LoadedRun& run : m_runs)
        compared.push_back({run.store.get(), run.label});
    m_table = compareRuns(compared, m_options);
    Q_EMIT tableChanged();
}

} // namespace strata::app
