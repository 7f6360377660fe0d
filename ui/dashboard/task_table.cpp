#include "ui/dashboard/task_table.h"

#include "app/metrics/placement.h"
#include "ui/shell/theme.h"

#include <QHeaderView>
#include <QStyle>

#include <algorithm>

namespace strata::ui {

namespace {
enum TaskColumn { NameColumn, HostColumn, StateColumn, StepColumn, ExitColumn, ResultColumn, TaskColumns };
}

TaskTable::TaskTable(QWidget* parent) : QTableWidget(0, TaskColumns, parent)
{
    setObjectName("taskTable");
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setHorizontalHeaderLabels({tr("Task"), tr("Host"), tr("State"), tr("Step"), tr("Exit"), tr("Result")});
    verticalHeader()->hide();
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
}

QString TaskTable::selectedTask() const
{
    const int row = currentRow();
    return row >= 0 && item(row, NameColumn) ? item(row, NameColumn)->text() : QString();
}

QSize TaskTable::sizeHint() const
{
    const int rows = std::clamp(rowCount(), 1, kRowsShown);
    const int height = horizontalHeader()->height() + rows * verticalHeader()->defaultSectionSize() + 2 * frameWidth();
    return {QTableWidget::sizeHint().width(), height};
}

QSize TaskTable::minimumSizeHint() const
{
    // Up to three tasks stay in view however small the window (a chief, a worker, an evaluator).
    const int rows = std::clamp(rowCount(), 1, 3);
    return {QTableWidget::minimumSizeHint().width(),
            horizontalHeader()->height() + rows * verticalHeader()->defaultSectionSize() + 2 * frameWidth()};
}

void TaskTable::refresh(const app::MetricsStore& store)
{
    const QList<app::TaskSummary> tasks = app::taskSummaries(store);
    const bool grew = rowCount() != tasks.size();
    setRowCount(static_cast<int>(tasks.size()));
    for (int row = 0; row < tasks.size(); ++row) {
        const app::TaskSummary& t = tasks[row];
        QString exit;
        if (t.exited)
            exit = t.crashed ? tr("killed by a signal") : tr("status %1").arg(t.exitCode);
        // A lost worker says why it is lost (killed, or named by the survivors); the
        // survivors that stopped because of it show their error, which names it.
        const QString result = t.lost ? t.lostReason : (t.error.isEmpty() ? t.result : t.error);
        const QString step = t.totalSteps > 0 ? QStringLiteral("%1 / %2").arg(t.step).arg(t.totalSteps) : QString::number(t.step);
        const QStringList cells{t.task, t.place, app::stateText(t), step, exit, result};
        for (int c = 0; c < cells.size(); ++c) {
            auto* cell = new QTableWidgetItem(cells[c]);
            cell->setToolTip(t.lost && !t.error.isEmpty() ? result + '\n' + t.error : cells[c]);
            if (t.state == app::TaskState::Failed || t.lost)
                cell->setForeground(theme::error(palette()));
            setItem(row, c, cell);
        }
        // An unreachable task may well be training: why it cannot be heard, not a failure.
        if (t.unreachable) {
            item(row, StateColumn)->setToolTip(t.unreachableWhy);
            item(row, StateColumn)->setForeground(theme::warning(palette()));
        }
        // A straggler now: a mark by its name; every cell of its row says how slow since when (a
        // recovered one's too, without the mark).
        if (t.straggling) {
            item(row, NameColumn)->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
            if (t.state != app::TaskState::Failed && !t.lost)
                item(row, NameColumn)->setForeground(theme::warning(palette()));
        }
        if (!t.straggler.isEmpty())
            for (int c = 0; c < cells.size(); ++c)
                item(row, c)->setToolTip(t.straggler + '\n' + item(row, c)->toolTip());
    }
    if (grew)
        updateGeometry(); // as tall as its rows
}

} // namespace strata::ui
