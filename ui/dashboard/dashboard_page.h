#pragma once
// Dashboard: a run as it happens, laid out as a TensorBoard or W&B user reads a run: its state
// and progress (starting, training, evaluating, completed, stopped or failed, truthfully), its
// figures in large type (HeadlineView), loss and accuracy large at the top (every step,
// validation per epoch as markers), then a strip of throughput, step time (a line, and the
// latest split as numbers and bars), device utilization and memory; under them the task table
// (sized to its rows; sorted by a header's click, filtered by the words above it) and tabs: the placement (a tree and a map), the log, the
// timeline of every task's last steps (TimelineView), and the plots that
// apply only to some jobs (an evaluator's evaluations; ParameterServer's staleness and ps
// traffic), hidden for the others. Every plot has its menu and hover toolbar (SeriesPlot);
// the step plots zoom, pan and show the crosshair together (PlotLink); any of the large or
// strip plots can be maximised. The plots are declared in one table (dashboard_panels.h).
// Stop, and Kill task (failure injection: the selected task killed as a crash would).
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
class QHBoxLayout;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTabWidget;
class QTreeWidget;

namespace strata::ui {

class Dialogs;
class HeadlineView;
class PlacementMapView;
class PlacementTree;
class PlotLink;
class RunLog;
class SeriesPlot;
class StepSplitView;
class TaskFilterBar;
class TaskTable;
class TimelineView;
class WorkerHeatmapView;

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

    // Declared in dashboard_panels.cpp, in this order.
    enum PlotKind {
        LossPlot,
        AccuracyPlot,
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
    // The loss's and accuracy's smoothing is the header's controls'; the throughput's its plot
    // menu's (default kThroughputSmoothing: the windows' rates are noisy).
    const app::Smoothing& smoothing(PlotKind kind) const { return m_sources[kind]->smoothing(); }
    void setSmoothing(PlotKind kind, const app::Smoothing& smoothing);
    static const app::Smoothing kThroughputSmoothing;
    // What every step plot's x counts (their menus' "X axis").
    void setXAxis(app::XAxis axis);
    app::XAxis xAxis() const;
    QTreeWidget* placementTree() const;
    PlacementMapView* placementMap() const { return m_map; }
    TaskTable* taskTable() const { return m_tasks; }
    TaskFilterBar* taskFilter() const { return m_taskFilter; }
    QPlainTextEdit* logView() const;
    QProgressBar* progressBar() const { return m_progress; }
    QTabWidget* tabs() const { return m_tabs; }
    HeadlineView* headline() const { return m_headline; }
    StepSplitView* stepSplit() const { return m_stepSplit; }
    // The heatmap of each worker's time per step, beside the loss and accuracy for a job of many
    // workers (more than app::kBandAboveLines: where their lines become a band).
    WorkerHeatmapView* workerHeatmap() const { return m_heatmap; }
    // The last steps of every task on the job's clock (its tab: "Timeline").
    TimelineView* timeline() const { return m_timeline; }
    // Whether a plot draws many lines of a kind as a band (its menu's "Draw as a band"); on
    // for every plot of a new page.
    void setBands(PlotKind kind, bool shown);
    // The plot shown alone (maximised); null when none is.
    SeriesPlot* maximizedPlot() const;

    // The splitter's sizes and the tab shown, for the window to remember.
    QByteArray saveLayout() const;
    void restoreLayout(const QByteArray& layout);

Q_SIGNALS:
    void message(const QString& text, bool error);

protected:
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    // The constructor's steps: the header (state, progress, smoothing, Kill, Stop), the large
    // plots and the strip, the tabs, the splitter holding them, the store's and the run's signals.
    QHBoxLayout* buildHeader();
    void buildPlotRows();
    void buildTabs();
    void buildSplitter();
    void connectRun();
    void buildPlots(Dialogs* dialogs);
    // A step plot's own menu items: the x axis, and the throughput's smoothing.
    void extendMenu(PlotKind kind, QMenu& menu);
    QWidget* makeSmoothingControls();
    void applySmoothing();
    void refreshProgress();
    void refreshPlacement();
    void refreshApplicableTabs();
    // `shown` (a plot, the heatmap, or the timeline with its tabs) alone, or back among the others.
    void showMaximized(QWidget* shown, bool maximized);
    // The heatmap shown for many workers, while no plot is maximised.
    void refreshHeatmap();
    bool stripHasRoomForTheSplit() const;
    static constexpr int kSplitShownFromWidth = 1000; // narrower: the strip's plots need its room
    void showMapMenu(const QPoint& at);
    // A plot's title, with its smoothing when it has one of its own.
    void updateTitle(PlotKind kind);

    const app::MetricsStore& m_store;
    app::RunController* m_live;
    Dialogs* m_dialogs;
    std::vector<std::unique_ptr<app::StoreLines>> m_sources; // by PlotKind
    std::vector<SeriesPlot*> m_plots;                         // by PlotKind
    PlotLink* m_link;
    QWidget* m_maximized = nullptr; // a plot, the heatmap or the timeline
    bool m_laidOut = false; // the splitter has its first sizes (or the user's, restored)
    QComboBox* m_smoothingKind;
    QDoubleSpinBox* m_smoothingWeight;
    QSpinBox* m_smoothingWindow;
    QLabel* m_state;
    QProgressBar* m_progress;
    QPushButton* m_stop;
    QPushButton* m_kill;
    HeadlineView* m_headline;
    QWidget* m_main;  // the large plots
    QWidget* m_strip; // the small plots and the step split
    QWidget* m_bottom; // the task table and the tabs
    StepSplitView* m_stepSplit;
    WorkerHeatmapView* m_heatmap;
    TimelineView* m_timeline;
    TaskTable* m_tasks;
    TaskFilterBar* m_taskFilter; // above the table
    PlacementTree* m_placement;
    PlacementMapView* m_map;
    RunLog* m_log;
    QSplitter* m_splitter;
    QTabWidget* m_tabs;
    QWidget* m_evaluationTab;
    QWidget* m_stalenessTab;
    QWidget* m_psTab;
};

} // namespace strata::ui
