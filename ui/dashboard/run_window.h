#pragma once
// A finished run's dashboard, rebuilt from its run directory (app::loadRun): the same page
// as the live dashboard, over a store of its own, in a window of its own so that several
// runs can be open beside the main window. Ctrl+W closes it.

#include "app/metrics/metrics_store.h"

#include <QWidget>

#include <memory>

namespace strata::ui {

class DashboardPage;
class Dialogs;

class RunWindow : public QWidget {
    Q_OBJECT

public:
    // Loads `runDir`; null with the reason when it cannot be read. `dialogs` must outlive it.
    static RunWindow* open(const QString& runDir, const QString& title, Dialogs* dialogs, QString* error,
                           QWidget* parent = nullptr);
    ~RunWindow() override;

    const app::MetricsStore& store() const { return *m_store; }
    DashboardPage* dashboard() const { return m_dashboard; }

private:
    RunWindow(std::unique_ptr<app::MetricsStore> store, Dialogs* dialogs, QWidget* parent);

    std::unique_ptr<app::MetricsStore> m_store;
    DashboardPage* m_dashboard;
};

} // namespace strata::ui
