#pragma once
// ComparisonSession: the runs being compared in the window: loaded from their directories
// (each its own MetricsStore), the lines the comparison's plots draw (each run's step-time
// split is in the table's summaries), the table (recomputed
// when the target loss or the baseline changes), what differs between the experiments, and
// each run's colour (run_colours.h: by history id, else by directory).
// The Compare page only shows it; the benchmark drives it without the page.
//
// Threads: the GUI thread.

#include "app/compare/compare_lines.h"
#include "app/compare/experiment_diff.h"
#include "app/compare/run_comparison.h"

#include <QObject>

#include <memory>
#include <vector>

namespace strata::app {

class ComparisonSession : public QObject {
    Q_OBJECT

public:
    explicit ComparisonSession(QObject* parent = nullptr);
    ~ComparisonSession() override;

    // Replaces the runs by those in `dirs` (labels: one per directory, or the directories'
    // names; historyIds: one per directory, 0 or missing for a run without one). On failure
    // the runs shown before stay, and `error` names the directory.
    bool load(const QStringList& dirs, const QStringList& labels, QString* error,
              const QList<qint64>& historyIds = {});
    void clear();

    int runCount() const { return int(m_runs.size()); }
    QStringList labels() const;
    const QString& runDir(int run) const { return m_runs[size_t(run)].dir; }
    // The run's colour: an index into ui::theme::series, distinct among the runs shown.
    int colourSlot(int run) const { return m_colourSlots[size_t(run)]; }

    void setTargetLoss(std::optional<double> target);
    // -1: the default baseline (the first OneDevice or Default run).
    void setBaseline(int run);
    void setSmoothing(const Smoothing& smoothing); // the plots' lines
    const CompareOptions& options() const { return m_options; }

    const ComparisonTable& table() const { return m_table; }
    const std::vector<ExperimentDifference>& differences() const { return m_differences; }
    // The whole comparison as `strata compare` prints it.
    QString report(ReportFormat format) const;

    enum PlotKind { LossByStep, LossByTime, Throughput, PlotCount };
    const SeriesLines& lines(PlotKind kind) const { return *m_lines[size_t(kind)]; }

Q_SIGNALS:
    // The runs changed (new lines, table and differences).
    void runsChanged();
    // The table changed (target loss, baseline).
    void tableChanged();

private:
    void recompute();

    std::vector<LoadedRun> m_runs;
    std::vector<std::unique_ptr<SeriesLines>> m_lines;
    CompareOptions m_options;
    ComparisonTable m_table;
    std::vector<ExperimentDifference> m_differences;
    std::vector<int> m_colourSlots; // per run
    Smoothing m_smoothing;
};

} // namespace strata::app
