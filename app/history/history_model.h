#pragma once
// HistoryModel: the run history as a table for the history page (a QTableView shows it
// directly): one row per run of RunHistory::query(), newest first by default. Filtering and
// sorting re-query the database (SQL WHERE and ORDER BY), so thousands of runs stay fast;
// sort() is what a view with sorting enabled calls on a header click.
//
// Roles: DisplayRole (formatted text), ToolTipRole (the details a cell leaves out),
// TextAlignmentRole (numbers right), SortRole (the raw value, for a proxy), RunIdRole.
//
// Threads: the history's. A failed query keeps the rows shown before and emits
// `errorOccurred` (also kept in error()).

#include "app/history/run_history.h"

#include <QAbstractTableModel>

#include <optional>
#include <vector>

namespace strata::app {

class HistoryModel : public QAbstractTableModel {
    Q_OBJECT

public:
    // The columns, in the order of RunFilter::Sort (a column sorts by its own key).
    enum Column {
        StartedColumn = RunFilter::StartedAt,
        NameColumn = RunFilter::Name,
        StrategyColumn = RunFilter::Strategy,
        ReplicasColumn = RunFilter::Replicas,
        StatusColumn = RunFilter::Status,
        StepsColumn = RunFilter::Steps,
        SamplesPerSecColumn = RunFilter::SamplesPerSec,
        TestAccuracyColumn = RunFilter::TestAccuracy,
        TestLossColumn = RunFilter::TestLoss,
        WallTimeColumn = RunFilter::WallSeconds,
        TagsColumn = RunFilter::Tags,
        // A finished run against the planner's prediction: "predicted N/s, measured M/s (error +x%)".
        PredictionColumn = RunFilter::PredictionError,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole, RunIdRole };

    // `history` (open or not yet) must outlive the model. No rows until refresh()/setFilter().
    explicit HistoryModel(RunHistory* history, QObject* parent = nullptr);

    // Shows the runs `filter` selects (its sort included); false when the query failed.
    bool setFilter(const RunFilter& filter);
    const RunFilter& filter() const { return m_filter; }
    // Reads the runs again (after a run was recorded, renamed, tagged or removed).
    bool refresh();
    const QString& error() const { return m_error; }

    qint64 runId(int row) const;
    const RunRecord& record(int row) const;
    // The row of a run; -1 when it is not shown.
    int rowOf(qint64 runId) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

Q_SIGNALS:
    void errorOccurred(const QString& message);

private:
    struct Row {
        RunRecord run;
        std::optional<double> testAccuracy, testLoss; // parsed once from run.metrics
    };
    QVariant display(const Row& row, int column) const;
    QVariant sortValue(const Row& row, int column) const;
    QVariant toolTip(const Row& row, int column) const;

    RunHistory* m_history;
    RunFilter m_filter;
    std::vector<Row> m_rows;
    QString m_error;
};

} // namespace strata::app
