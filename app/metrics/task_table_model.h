#pragma once
// The task table's rows (a QTableView shows them through TaskTableSortFilter): a task each,
// where it runs, its state (a lost worker shown as lost, a remote task its node cannot hear as
// unreachable, each with why), its step, the pace of its latest window (step time, samples/s),
// how its process exited and its result. Refreshed in place: rows whose task is unchanged are
// told only when their values changed, new tasks are inserted, so a view keeps its sort, its
// selection and its scroll while the run goes on; only a task gone (a new run) resets it.
//
// Roles: DisplayRole (text), ToolTipRole (why: a loss's reason, an unreachable node's, a
// straggler's stretches), TextAlignmentRole (numbers right), SortRole (the value a column sorts
// by: a number, a name compared in natural order, or nothing, which sorts last), ConcernRole (how
// the cell is coloured), TaskRole (the task's name), StragglingRole (the row's mark). A per-row
// mark (a flag) is a field of TaskSummary read in data().

#include "app/metrics/placement.h"

#include <QAbstractTableModel>
#include <QList>

namespace strata::app {

class TaskTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        TaskColumn,
        HostColumn,
        StateColumn,
        StepColumn,
        StepTimeColumn,
        SamplesPerSecColumn,
        ExitColumn,
        ResultColumn,
        ColumnCount
    };
    // StragglingRole: true while the task is a straggler (stragglers.h), for the view's mark.
    enum Role { SortRole = Qt::UserRole, ConcernRole, TaskRole, StragglingRole };
    // What a cell's colour says: nothing, a warning (an unreachable node; a straggler's name), a
    // failure (a failed or lost task: the whole row).
    enum class Concern { None, Warning, Failure };

    explicit TaskTableModel(QObject* parent = nullptr);

    // The run's tasks (taskSummaries()), in the store's order.
    void setTasks(const QList<TaskSummary>& tasks);
    const TaskSummary& task(int row) const { return m_rows[row]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    // DisplayRole, ToolTipRole (what the column holds) and Qt::InitialSortOrderRole: the first
    // click on a column's header sorts it the way that shows first what needs a look: names
    // and states ascending (failures first), steps ascending (the task behind), step time
    // descending and samples/s ascending (the slowest).
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<TaskSummary> m_rows;
};

// Where a task's state sorts, what needs a look first: failed, lost, unreachable, held back by
// the staleness bound, waiting for its batch scheduler, starting, running, stopped, completed.
int stateRank(const TaskSummary& task);

} // namespace strata::app
