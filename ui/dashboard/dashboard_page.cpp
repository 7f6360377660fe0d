// DashboardPage: building and laying out the page, following the store, the layout saved.
// Its plots (built from dashboard_panels, their menus and smoothing): dashboard_page_plots.cpp.
#include "ui/dashboard/dashboard_page.h"

#include "app/metrics/headline.h"
#include "app/metrics/job_roles.h"
#include "app/metrics/placement.h"
#include "app/metrics/run_phase.h"
#include "app/metrics/step_split.h"
#include "ui/dashboard/dashboard_panels.h"
#include "ui/dashboard/headline_view.h"
#include "ui/dashboard/placement_map_view.h"
#include "ui/dashboard/placement_tree.h"
#include "ui/dashboard/run_log.h"
#include "ui/dashboard/step_split_view.h"
#include "ui/dashboard/task_filter_bar.h"
#include "ui/dashboard/task_table.h"
#include "ui/dashboard/timeline_view.h"
#include "ui/dashboard/worker_heatmap_view.h"
#include "ui/plot/plot_link.h"
#include "ui/plot/series_plot.h"
#include "ui/shell/dialogs.h"
#include "ui/shell/theme.h"

#include <QDataStream>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <limits>

namespace strata::ui {

namespace {
// The layout saved by saveLayout(): a version, the splitter's state, the tab shown.
constexpr int kLayoutVersion = 2;

// The progress bar's colour for what the run is doing: the palette's highlight while it goes.
QColor phaseColour(app::RunPhase phase, const QPalette& palette)
{
    switch (phase) {
    case app::RunPhase::Failed: return theme::error(palette);
    case app::RunPhase::Stopped: return theme::warning(palette);
    case app::RunPhase::Completed: return theme::success(palette);
    default: return palette.color(QPalette::Highlight);
    }
}
} // namespace

DashboardPage::DashboardPage(const app::MetricsStore& store, app::RunController* live, Dialogs* dialogs,
                             QWidget* parent)
    : QWidget(parent), m_store(store), m_live(live), m_dialogs(dialogs), m_link(new PlotLink(this)),
      m_state(new QLabel(this)), m_progress(new QProgressBar(this)), m_stop(new QPushButton(tr("Stop"), this)),
      m_kill(new QPushButton(tr("Kill task"), this)), m_headline(new HeadlineView(this)), m_main(new QWidget(this)),
      m_strip(new QWidget(this)), m_bottom(new QWidget(this)), m_stepSplit(new StepSplitView(this)),
      m_heatmap(new WorkerHeatmapView(store, this)), m_timeline(new TimelineView(store, this)),
      m_tasks(new TaskTable(this)), m_taskFilter(new TaskFilterBar(m_tasks, this)), m_placement(new PlacementTree(this)), m_map(new PlacementMapView(this)),
      m_log(new RunLog(this)), m_splitter(new QSplitter(Qt::Vertical, this)), m_tabs(new QTabWidget(this))
{
    buildPlots(dialogs);
    QHBoxLayout* header = buildHeader();
    buildPlotRows();
    buildTabs();
    buildSplitter();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addWidget(m_headline);
    layout->addWidget(m_splitter, 1);
    connectRun();
    refresh();
}

QHBoxLayout* DashboardPage::buildHeader()
{
    m_state->setObjectName("runState");
    QFont stateFont = m_state->font();
    stateFont.setBold(true);
    m_state->setFont(stateFont);
    m_progress->setObjectName("runProgress");
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_stop->setObjectName("stopButton");
    m_stop->setIcon(style()->standardIcon(QStyle::SP_MediaStop));
    m_stop->setToolTip(tr("Ask the engines to stop cleanly (checkpoint, then end); killed after 10 s (%1)")
                           .arg(QKeySequence(Qt::CTRL | Qt::Key_Period).toString(QKeySequence::NativeText)));
    m_stop->setVisible(m_live != nullptr);
    // Failure injection: a task killed outright, as a crash or the OOM killer would.
    m_kill->setObjectName("killTask");
    m_kill->setToolTip(tr("Kill the task selected in the task table at once (SIGKILL), as a crash would, to see "
                          "how the others react (a multi-worker job ends, the killed worker shown as lost)"));
    m_kill->setVisible(m_live != nullptr);
    connect(m_kill, &QPushButton::clicked, this, [this] {
        const QString task = m_tasks->selectedTask();
        if (!m_live || task.isEmpty())
            return;
        m_live->killTask(task);
        Q_EMIT message(tr("Killed %1 (SIGKILL).").arg(task), false);
    });
    connect(m_stop, &QPushButton::clicked, this, [this] {
        m_live->stop();
        Q_EMIT message(tr("Stopping: the engine writes a checkpoint and ends (killed if it does not within 10 s)."), false);
    });
    auto* header = new QHBoxLayout;
    header->addWidget(m_state);
    header->addWidget(m_progress, 1);
    header->addWidget(makeSmoothingControls());
    header->addWidget(m_kill);
    header->addWidget(m_stop);
    return header;
}

void DashboardPage::buildPlotRows()
{
    // The large plots side by side; the small ones in a row beneath.
    auto* mainLayout = new QHBoxLayout(m_main);
    mainLayout->setContentsMargins(0, 0, 0, 0);
    auto* stripLayout = new QHBoxLayout(m_strip);
    stripLayout->setContentsMargins(0, 0, 0, 0);
    for (const DashboardPanel& panel : dashboardPanels()) {
        if (panel.place == DashboardPanel::Place::Main)
            mainLayout->addWidget(m_plots[panel.kind], 1);
        if (panel.place == DashboardPanel::Place::Strip)
            stripLayout->addWidget(m_plots[panel.kind], 1);
        if (panel.kind == StepTimePlot) // the numbers beside the line
            stripLayout->addWidget(m_stepSplit, 1);
    }
    m_heatmap->setObjectName("workerHeatmap");
    m_heatmap->setMinimumSize(240, 140);
    m_heatmap->hide(); // until the job has many workers
    m_heatmap->setDialogs(m_dialogs);
    mainLayout->addWidget(m_heatmap, 1);
    connect(m_heatmap, &WorkerHeatmapView::maximizeToggled, this, [this](bool on) { showMaximized(m_heatmap, on); });
    connect(m_heatmap, &WorkerHeatmapView::fitAsked, m_plots[LossPlot], &SeriesPlot::resetView);
    connect(m_heatmap, &WorkerHeatmapView::message, this, &DashboardPage::message);
    // Zoomed or panned with the step plots.
    connect(m_plots[LossPlot], &SeriesPlot::viewChanged, this, &DashboardPage::refreshHeatmap);
    connect(m_plots[LossPlot], &SeriesPlot::viewReset, this, &DashboardPage::refreshHeatmap);
}

// The tabs under the task table: the placement (tree and map), the log, the timeline, and the
// plots that apply only to some jobs.
void DashboardPage::buildTabs()
{
    connect(m_tasks, &TaskTable::selectedTaskChanged, this, &DashboardPage::refreshProgress);
    auto* mapArea = new QScrollArea(this);
    mapArea->setWidget(m_map);
    mapArea->setWidgetResizable(true);
    connect(m_map, &QWidget::customContextMenuRequested, this, &DashboardPage::showMapMenu);
    m_evaluationTab = m_plots[EvaluationPlot];
    m_stalenessTab = m_plots[StalenessPlot];
    m_psTab = new QWidget(this);
    auto* psLayout = new QHBoxLayout(m_psTab);
    psLayout->setContentsMargins(0, 0, 0, 0);
    psLayout->addWidget(m_plots[PsTrafficPlot]);
    psLayout->addWidget(m_plots[PsUpdatesPlot]);
    m_tabs->setObjectName("dashboardTabs");
    m_tabs->setMinimumHeight(90); // a few rows of the tree or the log: the plots need the height more
    m_tabs->addTab(m_placement, tr("Placement"));
    m_tabs->addTab(mapArea, tr("Placement map"));
    m_tabs->addTab(m_log, tr("Log"));
    m_tabs->addTab(m_timeline, tr("Timeline"));
    m_timeline->setDialogs(m_dialogs);
    connect(m_timeline, &TimelineView::maximizeToggled, this, [this](bool on) { showMaximized(m_timeline, on); });
    connect(m_timeline, &TimelineView::message, this, &DashboardPage::message);
    // The timeline needs the height (a row per task and lane): chosen, it is shown maximised, with
    // the tabs (Restore in its menu: back in its tab); another tab chosen puts the page back.
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        const bool chosen = m_tabs->currentWidget() == m_timeline;
        if (chosen != (m_maximized == m_timeline))
            m_timeline->setMaximized(chosen);
    });
    m_tabs->addTab(m_evaluationTab, tr("Evaluation"));
    m_tabs->addTab(m_stalenessTab, tr("Staleness"));
    m_tabs->addTab(m_psTab, tr("Parameter servers"));

    auto* bottomLayout = new QVBoxLayout(m_bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->addWidget(m_taskFilter);
    bottomLayout->addWidget(m_tasks);
    bottomLayout->addWidget(m_tabs, 1);
}

void DashboardPage::buildSplitter()
{
    m_splitter->setObjectName("dashboardSplitter");
    m_splitter->addWidget(m_main);
    m_splitter->addWidget(m_strip);
    m_splitter->addWidget(m_bottom);
    // The large plots lead; the strip's narrow plots need their height for legend and ticks.
    m_splitter->setStretchFactor(0, 4);
    m_splitter->setStretchFactor(1, 4);
    m_splitter->setStretchFactor(2, 3);
    for (int i = 0; i < m_splitter->count(); ++i)
        m_splitter->setCollapsible(i, false);
}

// The store's signals and the live run's.
void DashboardPage::connectRun()
{
    connect(&m_store, &app::MetricsStore::updated, this, &DashboardPage::refresh);
    connect(&m_store, &app::MetricsStore::taskStateChanged, this, [this] {
        m_tasks->refresh(m_store);
        m_log->refresh(m_store);
        refreshProgress();
    });
    connect(&m_store, &app::MetricsStore::logAppended, this, [this] { m_log->refresh(m_store); });
    if (m_live) {
        // A new run (from Launch or a sweep): the views start empty.
        connect(m_live, &app::RunController::started, this, [this] {
            reset();
            refresh();
        });
        connect(m_live, &app::RunController::finished, this, &DashboardPage::refresh);
        connect(m_live, &app::RunController::launchFailed, this, &DashboardPage::refresh);
    }
}

DashboardPage::~DashboardPage()
{
    // The plots read the sources until they are gone.
    for (auto* plot : m_plots)
        plot->setSource(nullptr);
}

QTreeWidget* DashboardPage::placementTree() const
{
    return m_placement;
}

QPlainTextEdit* DashboardPage::logView() const
{
    return m_log;
}

SeriesPlot* DashboardPage::maximizedPlot() const
{
    return qobject_cast<SeriesPlot*>(m_maximized);
}

void DashboardPage::showMaximized(QWidget* shown, bool maximized)
{
    if (maximized && m_maximized && m_maximized != shown) { // one at a time
        if (auto* plot = qobject_cast<SeriesPlot*>(m_maximized))
            plot->setMaximized(false);
        else if (m_maximized == m_heatmap)
            m_heatmap->setMaximized(false);
        else
            m_timeline->setMaximized(false);
    }
    if (maximized || m_maximized == shown)
        m_maximized = maximized ? shown : nullptr;
    for (const DashboardPanel& panel : dashboardPanels())
        if (panel.place == DashboardPanel::Place::Main || panel.place == DashboardPanel::Place::Strip)
            m_plots[panel.kind]->setVisible(!m_maximized || m_plots[panel.kind] == m_maximized);
    m_stepSplit->setVisible(!m_maximized && stripHasRoomForTheSplit());
    refreshHeatmap();
    m_main->setVisible(!m_maximized || m_maximized->parentWidget() == m_main);
    m_strip->setVisible(!m_maximized || m_maximized->parentWidget() == m_strip);
    // The timeline alone: its tab without the task table.
    const bool timelineAlone = m_maximized == m_timeline;
    m_bottom->setVisible(!m_maximized || timelineAlone);
    m_tasks->setVisible(!timelineAlone);
    m_taskFilter->setVisible(!timelineAlone);
}

bool DashboardPage::stripHasRoomForTheSplit() const
{
    return width() >= kSplitShownFromWidth;
}

void DashboardPage::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // A narrow page gives the strip's plots the split's room (its figures are the step time's too).
    m_stepSplit->setVisible(!m_maximized && stripHasRoomForTheSplit());
}

void DashboardPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_laidOut)
        return;
    // The first time: the height shared 4:4:3 (large plots, the strip, the tasks and tabs), not
    // by what each part would like (a tree's wish would take the plots' room).
    m_laidOut = true;
    QTimer::singleShot(0, this, [this, before = m_splitter->sizes()] { // once the layout has given the splitter its height
        if (m_splitter->sizes() != before)
            return; // the user (or a test) set them meanwhile
        const int height = m_splitter->height();
        m_splitter->setSizes({height * 4 / 11, height * 4 / 11, height * 3 / 11});
    });
}

QByteArray DashboardPage::saveLayout() const
{
    QByteArray layout;
    QDataStream out(&layout, QIODevice::WriteOnly);
    out << qint32(kLayoutVersion) << m_splitter->saveState() << qint32(m_tabs->currentIndex());
    return layout;
}

void DashboardPage::restoreLayout(const QByteArray& layout)
{
    QDataStream in(layout);
    qint32 version = 0, tab = 0;
    QByteArray splitter;
    in >> version >> splitter >> tab;
    if (in.status() != QDataStream::Ok || version != kLayoutVersion)
        return; // nothing saved, or by another version: the default layout
    m_splitter->restoreState(splitter);
    m_laidOut = true; // as the user left it
    if (tab >= 0 && tab < m_tabs->count())
        m_tabs->setCurrentIndex(tab);
}

void DashboardPage::reset()
{
    m_log->reset();
    m_placement->forget();
    m_map->setMap({});
    for (auto* plot : m_plots)
        plot->resetView();
    m_timeline->resetView();
}

void DashboardPage::refresh()
{
    const auto hold = m_store.holdForReading();
    refreshApplicableTabs();
    // Only what is on screen costs anything: the plots draw what fits their width.
    for (auto* plot : m_plots)
        if (plot->isVisible() || !isVisible())
            plot->refresh();
    refreshHeatmap();
    if (m_timeline->isVisible() || !isVisible())
        m_timeline->refresh();
    m_stepSplit->setSplits(app::recentStepSplits(m_store));
    m_headline->refresh(app::headline(m_store), m_store.progress());
    refreshProgress();
    m_tasks->refresh(m_store);
    refreshPlacement();
    m_log->refresh(m_store);
}

void DashboardPage::refreshHeatmap()
{
    const bool shown = m_maximized ? m_maximized == m_heatmap : m_heatmap->workerCount() > app::kBandAboveLines;
    // The steps the step plots show, when their x counts steps.
    const QPair<double, double> steps = m_plots[LossPlot]->xRange();
    const double none = std::numeric_limits<double>::quiet_NaN();
    const bool bySteps = xAxis() == app::XAxis::Step;
    m_heatmap->setSteps(bySteps ? steps.first : none, bySteps ? steps.second : none);
    if (m_heatmap->isHidden() == shown)
        m_heatmap->setVisible(shown);
    if (shown)
        m_heatmap->refresh();
}

void DashboardPage::refreshApplicableTabs()
{
    const app::JobTraits job = app::jobTraits(m_store);
    m_tabs->setTabVisible(m_tabs->indexOf(m_evaluationTab), job.evaluator);
    m_tabs->setTabVisible(m_tabs->indexOf(m_stalenessTab), job.parameterServer);
    m_tabs->setTabVisible(m_tabs->indexOf(m_psTab), job.parameterServer);
    // What an empty plot says: how to start a run, or that one is starting.
    const QString empty = job.tasks ? tr("No data yet")
                          : m_live  ? tr("No run yet: press Launch (%1)")
                                          .arg(QKeySequence(Qt::CTRL | Qt::Key_R).toString(QKeySequence::NativeText))
                                    : tr("This run recorded no steps");
    for (auto* plot : m_plots)
        plot->setEmptyText(empty);
    m_timeline->setEmptyText(job.tasks ? tr("No step timelines yet: each task's last steps show here as it records them\n"
                                            "(its engine writes them with its step records; older engines do not)")
                                       : empty);
}

void DashboardPage::refreshProgress()
{
    const app::RunOutcome outcome = m_live ? m_live->outcome() : app::endedOutcome(m_store);
    const app::RunStatus status = app::runStatus(m_store, outcome);
    m_progress->setValue(static_cast<int>(status.fraction * 1000));
    m_progress->setFormat(status.text);
    m_progress->setProperty("phase", app::phaseName(status.phase));
    QPalette bar = palette();
    bar.setColor(QPalette::Highlight, phaseColour(status.phase, palette()));
    m_progress->setPalette(bar);
    m_stop->setEnabled(m_live && m_live->isRunning());
    m_kill->setEnabled(m_live && m_live->isRunning() && !m_tasks->selectedTask().isEmpty());
    m_state->setText(app::phaseName(status.phase));
    const bool ended = status.phase == app::RunPhase::Failed || status.phase == app::RunPhase::Stopped ||
                       status.phase == app::RunPhase::Completed;
    m_state->setStyleSheet(ended ? QStringLiteral("color: %1").arg(phaseColour(status.phase, palette()).name()) : QString());
}

void DashboardPage::refreshPlacement()
{
    const QList<app::TaskPlacement> tasks = app::placements(m_store);
    const QList<app::TaskSummary> summaries = app::taskSummaries(m_store);
    m_placement->refresh(tasks, summaries);
    // The map also shows the devices' latest reports (about one a second) and the tasks that
    // stand out (failed, lost, unreachable): laid out again only when what it shows changed.
    const app::PlacementMap map = app::placementMap(tasks, summaries, app::deviceUsage(m_store));
    if (map != m_map->map())
        m_map->setMap(map);
}

void DashboardPage::showMapMenu(const QPoint& at)
{
    QMenu menu(this);
    QAction* exportImage = menu.addAction(tr("Export image (PNG, SVG, PDF)..."), this, [this] {
        const QString path = m_dialogs->saveFile(this, tr("Export the placement map"), tr("Placement map") + ".png",
                                                 tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
        QString error;
        if (!path.isEmpty() && !m_map->exportImage(path, &error))
            Q_EMIT message(error, true);
    });
    exportImage->setEnabled(!m_map->map().empty());
    menu.exec(m_map->mapToGlobal(at));
}

} // namespace strata::ui
