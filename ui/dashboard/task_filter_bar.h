#pragma once
// Above the task table: a field whose words keep the tasks whose name, host or state hold them
// ("node-3", "failed", "worker node-1"), and how many tasks the table shows ("12 of 64
// tasks"). Shown once the run has more tasks than the table shows at once, or while a filter
// is set (a run of a few tasks needs no filter, and its plots the room).

#include <QWidget>

class QLabel;
class QLineEdit;

namespace strata::ui {

class TaskTable;

class TaskFilterBar : public QWidget {
    Q_OBJECT

public:
    explicit TaskFilterBar(TaskTable* table, QWidget* parent = nullptr);

    QLineEdit* field() const { return m_field; }
    QLabel* count() const { return m_count; }

private:
    void showCounts();

    TaskTable* m_table;
    QLineEdit* m_field;
    QLabel* m_count;
};

} // namespace strata::ui
