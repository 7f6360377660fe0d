#pragma once
// The run's log: every task's events, warnings and errors in arrival order, errors in the
// error colour; appended as they come (only the new entries are read).

#include "app/metrics/metrics_store.h"

#include <QPlainTextEdit>

namespace strata::ui {

class RunLog : public QPlainTextEdit {
    Q_OBJECT

public:
    explicit RunLog(QWidget* parent = nullptr);

    void refresh(const app::MetricsStore& store);
    // Before a new run: empty.
    void reset();

private:
    int m_shown = 0; // entries shown
};

} // namespace strata::ui
