#pragma once
// The task table sorted and filtered, over a TaskTableModel (a view with sorting enabled sorts
// it on a header click). Sorting compares each column's SortRole: numbers as numbers, names in
// natural order ("worker:2" before "worker:10"), states by stateRank(); a cell with nothing
// to sort by (no step time yet, no exit) goes last in either order, and rows that tie keep the
// tasks' natural order. Dynamic: a refresh that changes a row moves it where it now belongs.
// The filter keeps the tasks whose name, host or state holds every word of it (any case):
// "node-3", "failed", "worker node-1".

#include "app/metrics/placement.h"

#include <QSortFilterProxyModel>
#include <QString>

namespace strata::app {

// Whether `filter`'s every word is in `task`'s name, place or state text (any case); an empty
// filter matches every task.
bool taskMatches(const TaskSummary& task, const QString& filter);

class TaskTableSortFilter : public QSortFilterProxyModel {
    Q_OBJECT

public:
    explicit TaskTableSortFilter(QObject* parent = nullptr);

    // The source must be a TaskTableModel.
    void setFilterText(const QString& text);
    const QString& filterText() const { return m_filter; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    QString m_filter;
};

} // namespace strata::app
