#pragma once
// The run's tasks, a row each: where each runs, its state (a lost worker shown as lost, a
// remote task its node cannot hear as unreachable, each with why), its step, how its process
// exited and its result. As tall as its rows (up to a limit, then it scrolls), so a one-task
// run does not give the table the room the plots need.

#include "app/metrics/metrics_store.h"

#include <QTableWidget>

namespace strata::ui {

class TaskTable : public QTableWidget {
    Q_OBJECT

public:
    explicit TaskTable(QWidget* parent = nullptr);

    void refresh(const app::MetricsStore& store);
    // The selected task's name; empty when none is.
    QString selectedTask() const;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

private:
    static constexpr int kRowsShown = 8; // taller than this, the table scrolls
};

} // namespace strata::ui
