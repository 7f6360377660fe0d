#pragma once
// Dashboard: a run as it happens: per-replica loss (smoothed on request; every worker's
// replicas their own lines), throughput (per worker and total), the step time split, device
// utilization and memory, an evaluator's evaluations, ParameterServer's staleness and ps
// traffic, placement (tasks -> devices -> replicas, the gradient reduction, where each
// variable lives, as a tree and as a picture), task states and where each
// runs (a lost worker shown as lost, a remote task its node cannot hear as unreachable, each
// with why), progress with ETA, the log, Stop, and Kill task (failure
// injection: the selected task, any worker of a job, killed as a crash would).
// Refreshes on the store's coalesced `updated`, so a fast event stream never floods it.
// The same page shows a live run (with its RunController: Stop, the live state) and one
// rebuilt from its run directory (the store alone).

#include "app/launch/run_controller.h"
#include "app/metrics/store_lines.h"

#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTreeWidget;

namespace strata::ui {

class Dialogs;
class PlacementMapView;
class SeriesPlot;

class DashboardPage : public QWidget {
    Q_OBJECT

public:
    // `store` must outlive the page; `live`: the controller running it (null for a finished
    // run: no Stop, the state from what the tasks reported).
    DashboardPage(const app::MetricsStore& store, app::RunController* live, Dialogs* dialogs,
                  QWidget* parent = nullptr);
    ~DashboardPage() override;

    // Before a new run: back to empty views that follow the data.
    void reset();
    // Re-reads everything from the store (also called on its `updated`).
    void refresh();

    // The first five in the grid; the others in tabs below, beside the placement: an
    // evaluator's evaluations, ParameterServer's staleness and its ps tasks' traffic and updates.
    enum PlotKind {
        LossPlot,
        ThroughputPlot,
        StepTimePlot,
        UtilizationPlot,
        MemoryPlot,
        EvaluationPlot,
        StalenessPlot,
        PsTrafficPlot,
        PsUpdatesPlot,
        PlotCount
    };
    SeriesPlot* plot(PlotKind kind) const { return m_plots[kind]; }
    const app::PlotSource& source(PlotKind kind) const { return *m_sources[kind]; }
    QTreeWidget* placementTree() const { return m_placement; }
    PlacementMapView* placementMap() const { return m_map; }
    QTableWidget* taskTable() const { return m_tasks; }
    QPlainTextEdit* logView() const { return m_log; }
    QProgressBar* progressBar() const { return m_progress; }

Q_SIGNALS:
    void message(const QString& text, bool error);

private:
    QWidget* makeSmoothingControls();
    void applySmoothing();
    void refreshProgress();
    void refreshTasks();
    void refreshPlacement();
    void refreshLog();
    void showPlotMenu(SeriesPlot* plot, const QString& name, const QPoint& at);

    const app::MetricsStore& m_store;
    app::RunController* m_live;
    Dialogs* m_dialogs;
    std::vector<std::unique_ptr<app::StoreLines>> m_sources;
    std::vector<SeriesPlot*> m_plots;
    QComboBox* m_smoothingKind;
    QDoubleSpinBox* m_smoothingWeight;
    QSpinBox* m_smoothingWindow;
    QLabel* m_state;
    QLabel* m_eta;
    QProgressBar* m_progress;
    QPushButton* m_stop;
    QPushButton* m_kill;
    QTableWidget* m_tasks;
    QTreeWidget* m_placement;
    PlacementMapView* m_map;
    QPlainTextEdit* m_log;
    int m_logShown = 0;
    QString m_placementShown; // what the tree shows, to rebuild only on change
};

} // namespace strata::ui
