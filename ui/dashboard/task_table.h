#pragma once
// The run's tasks, a row each (app::TaskTableModel: where each runs, its state with why, its
// step, the pace of its latest window, how its process exited, its result), sorted by the
// column whose header is clicked (again: the other way; a third time: the store's order) and
// filtered by TaskFilterBar's words (app::TaskTableSortFilter). The sort, the selection and the
// scroll stay while the run updates the rows. A failed or lost task's row reads in the
// palette's error colour, an unreachable task's state in its warning colour. As tall as its
// rows (up to a limit, then it scrolls), so a one-task run does not give the table the room
// the plots need.

#include "app/metrics/metrics_store.h"
#include "app/metrics/task_table_model.h"
#include "app/metrics/task_table_sort_filter.h"

#include <QTableView>

namespace strata::ui {

class TaskTable : public QTableView {
    Q_OBJECT

public:
    static constexpr int kRowsShown = 8; // taller than this, the table scrolls

    explicit TaskTable(QWidget* parent = nullptr);

    void refresh(const app::MetricsStore& store);
    // Keeps the tasks whose name, host or state hold every word of `text` (app::taskMatches).
    void setFilterText(const QString& text);
    // Tasks the filter keeps, and in all.
    int shownCount() const { return m_rows->rowCount(); }
    int taskCount() const { return m_model->rowCount(); }
    // The text of the cell at `row` (as sorted and filtered) and `column` (app::TaskTableModel::Column).
    QString text(int row, int column) const;
    // The row showing `task`; -1 when none does.
    int rowOf(const QString& task) const;
    // The selected task's name; empty when none is.
    QString selectedTask() const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void selectedTaskChanged();
    // The tasks in all, or those the filter keeps, changed in number.
    void countsChanged();

private:
    int heightFor(int rows) const;

    app::TaskTableModel* m_model;
    app::TaskTableSortFilter* m_rows; // over m_model: what the view shows
};

} // namespace strata::ui
