#include "app/metrics/task_table_sort_filter.h"

#include "app/metrics/natural_order.h"
#include "app/metrics/task_table_model.h"

namespace strata::app {

bool taskMatches(const TaskSummary& task, const QString& filter)
{
    const QStringList words = filter.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const QString state = stateText(task);
    for (const QString& word : words)
        if (!task.task.contains(word, Qt::CaseInsensitive) && !task.place.contains(word, Qt::CaseInsensitive) &&
            !state.contains(word, Qt::CaseInsensitive))
            return false;
    return true;
}

TaskTableSortFilter::TaskTableSortFilter(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(TaskTableModel::SortRole);
}

void TaskTableSortFilter::setFilterText(const QString& text)
{
    if (text == m_filter)
        return;
    m_filter = text;
    invalidateRowsFilter();
}

bool TaskTableSortFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const auto* tasks = qobject_cast<const TaskTableModel*>(sourceModel());
    return sourceParent.isValid() || !tasks || sourceRow >= tasks->rowCount() ||
           taskMatches(tasks->task(sourceRow), m_filter);
}

bool TaskTableSortFilter::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    // Descending, the proxy asks lessThan(right, left): what must stay as it is whatever the
    // order (nothing last, ties in the tasks' order) is turned over for it here.
    const bool descending = sortOrder() == Qt::DescendingOrder;
    const QVariant a = left.data(sortRole()), b = right.data(sortRole());
    if (a.isValid() != b.isValid())
        return a.isValid() != descending; // a value before nothing
    if (a.isValid()) {
        int c = 0;
        if (a.typeId() == QMetaType::QString)
            c = naturalCompare(a.toString(), b.toString());
        else
            c = a.toDouble() < b.toDouble() ? -1 : b.toDouble() < a.toDouble() ? 1 : 0;
        if (c != 0)
            return c < 0;
    }
    const int byTask = naturalCompare(left.data(TaskTableModel::TaskRole).toString(),
                                      right.data(TaskTableModel::TaskRole).toString());
    return descending ? byTask > 0 : byTask < 0;
}

} // namespace strata::app
