#pragma once
// Dashboard: a run as it happens: per-replica loss (smoothed on request; every worker's
// replicas their own lines), throughput (per worker and total; smoothed by default, its
// smoothing in its menu), the step time split, device
// utilization and memory, an evaluator's evaluations, ParameterServer's staleness and ps
// traffic, placement (tasks -> devices -> replicas, the gradient reduction, where each
// variable lives, as a tree and as a picture updated as devices report), task states and where each
// runs (a lost worker shown as lost, a remote task its node cannot hear as unreachable, each
// with why), progress with ETA, the log, Stop, and Kill task (failure
// injection: the selected task, any worker of a job, killed as a crash would).
// Refreshes on the store's coalesced `updated`, so a fast event stream never floods it.
// The same page shows a live run (with its RunController: Stop, the live state) and one
// rebuilt from its run directory (the store alone).

#include "app/launch/run_controller.h"
#include "app/metrics/placement_map.h"
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
class QSplitter;
class QTabWidget;
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
    // The loss's smoothing is the header's controls'; the throughput's its plot menu's
    // (default kThroughputSmoothing: the windows' rates are noisy).
    const app::Smoothing& smoothing(PlotKind kind) const { return m_sources[kind]->smoothing(); }
    void setSmoothing(PlotKind kind, const app::Smoothing& smoothing);
    static const app::Smoothing kThroughputSmoothing;
    QTreeWidget* placementTree() const { return m_placement; }
    PlacementMapView* placementMap() const { return m_map; }
    QTableWidget* taskTable() const { return m_tasks; }
    QPlainTextEdit* logView() const { return m_log; }
    QProgressBar* progressBar() const { return m_progress; }
    QTabWidget* tabs() const { return m_tabs; }

    // The splitter's sizes and the tab shown, for the window to remember.
    QByteArray saveLayout() const;
    void restoreLayout(const QByteArray& layout);

Q_SIGNALS:
    void message(const QString& text, bool error);

private:
    QWidget* makeSmoothingControls();
    void applySmoothing();
    void refreshProgress();
    void refreshTasks();
    void refreshPlacement();
    void refreshLog();
    void showPlotMenu(PlotKind kind, const QPoint& at);
    void showMapMenu(const QPoint& at);
    // A plot's title, with its smoothing when it has one of its own.
    void updateTitle(PlotKind kind);

    const app::MetricsStore& m_store;
    app::RunController* m_live;
    Dialogs* m_dialogs;
    std::vector<std::unique_ptr<app::StoreLines>> m_sources;
    std::vector<SeriesPlot*> m_plots;
    QStringList m_titles; // by PlotKind
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
    QSplitter* m_splitter;
    QTabWidget* m_tabs;
    int m_logShown = 0;
    QString m_placementShown; // what the tree shows, to rebuild only on change
    QList<app::DeviceUsage> m_usageShown; // what the map shows of the devices' reports
};

} // namespace strata::ui
