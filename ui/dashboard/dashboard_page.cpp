#include "ui/dashboard/dashboard_page.h"

#include "app/metrics/placement.h"
#include "app/metrics/placement_map.h"
#include "ui/shell/dialogs.h"
#include "ui/shell/theme.h"
#include "ui/dashboard/placement_map_view.h"
#include "ui/dashboard/series_plot.h"

#include <QComboBox>
#include <QDataStream>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace strata::ui {

namespace {
enum TaskColumn { NameColumn, HostColumn, StateColumn, StepColumn, ExitColumn, ResultColumn, TaskColumns };

QString clock(double seconds)
{
    const qint64 s = static_cast<qint64>(seconds + 0.5);
    return s >= 3600 ? QStringLiteral("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QChar('0')).arg(s % 60, 2, 10, QChar('0'))
                     : QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
}

QString bytes(qint64 n) { return QLocale().formattedDataSize(n, 1, QLocale::DataSizeTraditionalFormat); }

// The layout saved by saveLayout(): a version, the splitter's state, the tab shown.
constexpr int kLayoutVersion = 1;

QString smoothingText(const app::Smoothing& s)
{
    switch (s.kind) {
    case app::Smoothing::Kind::Ema: return DashboardPage::tr("EMA %1").arg(s.weight);
    case app::Smoothing::Kind::MovingAverage: return DashboardPage::tr("mean of %n point(s)", nullptr, s.window);
    case app::Smoothing::Kind::None: break;
    }
    return {};
}
} // namespace

// Step windows' rates swing with whatever else the machine does; TensorBoard's EMA with a
// weight of 0.8 follows a change within a few windows and hides single-window dips.
const app::Smoothing DashboardPage::kThroughputSmoothing{app::Smoothing::Kind::Ema, 0.8, 10};

DashboardPage::DashboardPage(const app::MetricsStore& store, app::RunController* live, Dialogs* dialogs,
                             QWidget* parent)
    : QWidget(parent), m_store(store), m_live(live), m_dialogs(dialogs), m_state(new QLabel(this)), m_eta(new QLabel(this)),
      m_progress(new QProgressBar(this)), m_stop(new QPushButton(tr("Stop"), this)),
      m_tasks(new QTableWidget(0, TaskColumns, this)), m_placement(new QTreeWidget(this)),
      m_map(new PlacementMapView(this)), m_log(new QPlainTextEdit(this)), m_splitter(new QSplitter(Qt::Vertical, this)),
      m_tabs(new QTabWidget(this))
{
    m_sources.push_back(std::make_unique<app::ReplicaLossLines>(store));
    m_sources.push_back(std::make_unique<app::ThroughputLines>(store));
    m_sources.push_back(std::make_unique<app::StepTimeLines>(store));
    m_sources.push_back(std::make_unique<app::DeviceUtilizationLines>(store));
    m_sources.push_back(std::make_unique<app::DeviceMemoryLines>(store));
    m_sources.push_back(std::make_unique<app::EvaluationLines>(store));
    m_sources.push_back(std::make_unique<app::StalenessLines>(store));
    m_sources.push_back(std::make_unique<app::ParameterServerTrafficLines>(store));
    m_sources.push_back(std::make_unique<app::ParameterServerUpdatesLines>(store));
    const QList<std::tuple<QString, QString, QString>> titles{
        {tr("Loss per replica"), tr("step"), tr("loss")},
        {tr("Throughput"), tr("step"), tr("samples/s")},
        {tr("Step time"), tr("step"), tr("ms per step")},
        {tr("Device utilization"), tr("step"), tr("busy fraction")},
        {tr("Device memory"), tr("step"), tr("bytes")},
        {tr("Evaluation of the chief's checkpoints"), tr("step"), tr("metric")},
        {tr("Staleness of each worker's gradients"), tr("global step"), tr("steps behind")},
        {tr("Parameter server traffic"), tr("seconds"), tr("bytes/s")},
        {tr("Parameter server updates"), tr("seconds"), tr("updates/s")}};
    const QStringList names{"lossPlot",       "throughputPlot", "stepTimePlot",  "utilizationPlot", "memoryPlot",
                            "evaluationPlot", "stalenessPlot",  "psTrafficPlot", "psUpdatesPlot"};
    for (int i = 0; i < PlotCount; ++i) {
        auto* plot = new SeriesPlot(this);
        plot->setObjectName(names[i]);
        m_titles << std::get<0>(titles[i]);
        plot->setTitle(std::get<0>(titles[i]));
        plot->setAxisLabels(std::get<1>(titles[i]), std::get<2>(titles[i]));
        plot->setSource(m_sources[i].get());
        plot->setMinimumSize(280, 200);
        plot->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(plot, &QWidget::customContextMenuRequested, this,
                [this, kind = PlotKind(i)](const QPoint& at) { showPlotMenu(kind, at); });
        m_plots.push_back(plot);
    }
    setSmoothing(ThroughputPlot, kThroughputSmoothing);
    m_plots[UtilizationPlot]->setFixedYRange(0, 1.05);
    // Variables (kilobytes) and the process (megabytes) on one plot: a log scale shows both.
    m_plots[MemoryPlot]->setYLogarithmic(true);
    m_plots[MemoryPlot]->setYUnits(SeriesPlot::Units::Bytes);
    m_plots[PsTrafficPlot]->setYUnits(SeriesPlot::Units::Bytes);

    m_state->setObjectName("runState");
    m_eta->setObjectName("runEta");
    m_progress->setObjectName("runProgress");
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_stop->setObjectName("stopButton");
    m_stop->setIcon(style()->standardIcon(QStyle::SP_MediaStop));
    m_stop->setToolTip(tr("Ask the engines to stop cleanly (checkpoint, then end); killed after 10 s (%1)")
                           .arg(QKeySequence(Qt::CTRL | Qt::Key_Period).toString(QKeySequence::NativeText)));
    m_stop->setVisible(live != nullptr);
    // Failure injection: a task killed outright, as a crash or the OOM killer would.
    m_kill = new QPushButton(tr("Kill task"), this);
    m_kill->setObjectName("killTask");
    m_kill->setToolTip(tr("Kill the task selected in the task table at once (SIGKILL), as a crash would, to see "
                          "how the others react (a multi-worker job ends, the killed worker shown as lost)"));
    m_kill->setVisible(live != nullptr);
    connect(m_kill, &QPushButton::clicked, this, [this] {
        const int row = m_tasks->currentRow();
        if (!m_live || row < 0 || !m_tasks->item(row, NameColumn))
            return;
        const QString task = m_tasks->item(row, NameColumn)->text();
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
    header->addWidget(m_eta);
    header->addWidget(makeSmoothingControls());
    header->addWidget(m_kill);
    header->addWidget(m_stop);

    auto* plots = new QWidget(this);
    auto* grid = new QGridLayout(plots);
    grid->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < EvaluationPlot; ++i)
        grid->addWidget(m_plots[i], i / 3, i % 3);

    m_tasks->setObjectName("taskTable");
    m_tasks->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tasks->setSelectionMode(QAbstractItemView::SingleSelection);
    connect(m_tasks, &QTableWidget::currentCellChanged, this, &DashboardPage::refreshProgress);
    m_tasks->setHorizontalHeaderLabels({tr("Task"), tr("Host"), tr("State"), tr("Step"), tr("Exit"), tr("Result")});
    m_tasks->verticalHeader()->hide();
    m_tasks->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tasks->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tasks->horizontalHeader()->setStretchLastSection(true);
    grid->addWidget(m_tasks, 1, 2);

    m_placement->setObjectName("placementTree");
    m_placement->setHeaderLabels({tr("Placement"), tr("Detail"), tr("Size")});
    // Every column as wide as its values; a cell the view still cuts shows its text as a tooltip.
    m_placement->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_placement->header()->setStretchLastSection(true);
    m_log->setObjectName("runLog");
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(100000);
    auto* mapArea = new QScrollArea(this);
    mapArea->setWidget(m_map);
    mapArea->setWidgetResizable(true);
    connect(m_map, &QWidget::customContextMenuRequested, this, &DashboardPage::showMapMenu);
    auto* parameterServers = new QWidget(this);
    auto* psLayout = new QHBoxLayout(parameterServers);
    psLayout->setContentsMargins(0, 0, 0, 0);
    psLayout->addWidget(m_plots[PsTrafficPlot]);
    psLayout->addWidget(m_plots[PsUpdatesPlot]);
    m_tabs->setObjectName("dashboardTabs");
    m_tabs->addTab(m_placement, tr("Placement"));
    m_tabs->addTab(mapArea, tr("Placement map"));
    m_tabs->addTab(m_log, tr("Log"));
    m_tabs->addTab(m_plots[EvaluationPlot], tr("Evaluation"));
    m_tabs->addTab(m_plots[StalenessPlot], tr("Staleness"));
    m_tabs->addTab(parameterServers, tr("Parameter servers"));

    m_splitter->setObjectName("dashboardSplitter");
    m_splitter->addWidget(plots);
    m_splitter->addWidget(m_tabs);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addWidget(m_splitter, 1);

    connect(&store, &app::MetricsStore::updated, this, &DashboardPage::refresh);
    connect(&store, &app::MetricsStore::taskStateChanged, this, [this] {
        refreshTasks();
        refreshLog();
    });
    connect(&store, &app::MetricsStore::logAppended, this, &DashboardPage::refreshLog);
    if (live) {
        // A new run (from Launch or a sweep): the views start empty.
        connect(live, &app::RunController::started, this, [this] {
            reset();
            refresh();
        });
        connect(live, &app::RunController::finished, this, &DashboardPage::refresh);
    }
    refresh();
}

DashboardPage::~DashboardPage()
{
    // The plots read the sources until they are gone.
    for (auto* plot : m_plots)
        plot->setSource(nullptr);
}

QWidget* DashboardPage::makeSmoothingControls()
{
    auto* box = new QWidget(this);
    m_smoothingKind = new QComboBox(box);
    m_smoothingKind->setObjectName("smoothingKind");
    m_smoothingKind->addItem(tr("No smoothing"));
    m_smoothingKind->addItem(tr("EMA (debiased)"));
    m_smoothingKind->addItem(tr("Moving average"));
    m_smoothingKind->setToolTip(tr("Smoothing of the loss lines, computed over every point (the throughput's is in "
                                   "its plot's menu)"));
    m_smoothingWeight = new QDoubleSpinBox(box);
    m_smoothingWeight->setObjectName("smoothingWeight");
    m_smoothingWeight->setRange(0, 0.999);
    m_smoothingWeight->setDecimals(3);
    m_smoothingWeight->setSingleStep(0.05);
    m_smoothingWeight->setValue(0.6);
    m_smoothingWindow = new QSpinBox(box);
    m_smoothingWindow->setObjectName("smoothingWindow");
    m_smoothingWindow->setRange(1, 100000);
    m_smoothingWindow->setValue(10);
    m_smoothingWindow->setSuffix(tr(" points"));
    connect(m_smoothingKind, &QComboBox::currentIndexChanged, this, &DashboardPage::applySmoothing);
    connect(m_smoothingWeight, &QDoubleSpinBox::valueChanged, this, &DashboardPage::applySmoothing);
    connect(m_smoothingWindow, &QSpinBox::valueChanged, this, &DashboardPage::applySmoothing);
    auto* layout = new QHBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_smoothingKind);
    layout->addWidget(m_smoothingWeight);
    layout->addWidget(m_smoothingWindow);
    applySmoothing();
    return box;
}

void DashboardPage::applySmoothing()
{
    app::Smoothing s;
    s.kind = static_cast<app::Smoothing::Kind>(m_smoothingKind->currentIndex());
    s.weight = m_smoothingWeight->value();
    s.window = m_smoothingWindow->value();
    m_smoothingWeight->setVisible(s.kind == app::Smoothing::Kind::Ema);
    m_smoothingWindow->setVisible(s.kind == app::Smoothing::Kind::MovingAverage);
    m_sources[LossPlot]->setSmoothing(s);
    m_plots[LossPlot]->refresh();
}

void DashboardPage::setSmoothing(PlotKind kind, const app::Smoothing& smoothing)
{
    m_sources[kind]->setSmoothing(smoothing);
    updateTitle(kind);
    m_plots[kind]->refresh();
}

void DashboardPage::updateTitle(PlotKind kind)
{
    const QString smoothing = kind == ThroughputPlot ? smoothingText(m_sources[kind]->smoothing()) : QString();
    m_plots[kind]->setTitle(smoothing.isEmpty() ? m_titles[kind] : tr("%1 (%2)").arg(m_titles[kind], smoothing));
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
    if (tab >= 0 && tab < m_tabs->count())
        m_tabs->setCurrentIndex(tab);
}

void DashboardPage::reset()
{
    m_log->clear();
    m_logShown = 0;
    m_placement->clear();
    m_placementShown.clear();
    m_usageShown.clear();
    m_map->setMap({});
    for (auto* plot : m_plots)
        plot->resetView();
}

void DashboardPage::refresh()
{
    // Only what is on screen costs anything: the plots draw what fits their width.
    for (auto* plot : m_plots)
        plot->refresh();
    refreshProgress();
    refreshTasks();
    refreshPlacement();
    refreshLog();
}

void DashboardPage::refreshProgress()
{
    const app::Progress p = m_store.progress();
    m_progress->setValue(static_cast<int>(p.fraction * 1000));
    m_progress->setFormat(p.totalSteps > 0 ? tr("step %1 / %2").arg(p.step).arg(p.totalSteps) : tr("waiting"));
    m_eta->setText(p.etaSeconds >= 0 ? tr("elapsed %1, ETA %2").arg(clock(p.elapsedSeconds), clock(p.etaSeconds))
                                     : tr("elapsed %1").arg(clock(p.elapsedSeconds)));
    const app::RunOutcome outcome = m_live ? m_live->outcome() : app::endedOutcome(m_store);
    m_stop->setEnabled(m_live && m_live->isRunning());
    m_kill->setEnabled(m_live && m_live->isRunning() && m_tasks->currentRow() >= 0);
    m_state->setText(app::outcomeName(outcome));
    m_state->setStyleSheet(outcome == app::RunOutcome::Failed
                               ? QStringLiteral("color: %1; font-weight: bold").arg(theme::error(palette()).name())
                               : QString());
}

void DashboardPage::refreshTasks()
{
    const QList<app::TaskSummary> tasks = app::taskSummaries(m_store);
    m_tasks->setRowCount(static_cast<int>(tasks.size()));
    for (int row = 0; row < tasks.size(); ++row) {
        const app::TaskSummary& t = tasks[row];
        QString exit;
        if (t.exited)
            exit = t.crashed ? tr("killed by a signal") : tr("status %1").arg(t.exitCode);
        // A lost worker says why it is lost (killed, or named by the survivors); the
        // survivors that stopped because of it show their error, which names it.
        const QString result = t.lost ? t.lostReason : (t.error.isEmpty() ? t.result : t.error);
        const QStringList cells{t.task, t.place, app::stateText(t),
                                t.totalSteps > 0 ? QStringLiteral("%1 / %2").arg(t.step).arg(t.totalSteps)
                                                 : QString::number(t.step),
                                exit, result};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setToolTip(t.lost && !t.error.isEmpty() ? result + '\n' + t.error : cells[c]);
            if (t.state == app::TaskState::Failed || t.lost)
                item->setForeground(theme::error(palette()));
            m_tasks->setItem(row, c, item);
        }
        // An unreachable task may well be training: why it cannot be heard, not a failure.
        if (t.unreachable) {
            m_tasks->item(row, StateColumn)->setToolTip(t.unreachableWhy);
            m_tasks->item(row, StateColumn)->setForeground(theme::warning(palette()));
        }
    }
}

void DashboardPage::refreshPlacement()
{
    const QList<app::TaskPlacement> tasks = app::placements(m_store);
    const QList<app::TaskSummary> summaries = app::taskSummaries(m_store);
    // Placement arrives once per task: rebuild only when it changed (keeps expansion state).
    QString key;
    for (const auto& t : tasks)
        key += t.task + t.place + t.strategy + QString::number(t.replicas.size()) + QString::number(t.variables.size()) +
               t.reduction + t.jobTasks.join(',') + ';';
    for (const auto& t : summaries)
        key += t.task + t.place + ';';
    // The map also shows the devices' latest reports (about one a second).
    const QList<app::DeviceUsage> usage = app::deviceUsage(m_store);
    if (key == m_placementShown && usage == m_usageShown)
        return;
    m_usageShown = usage;
    m_map->setMap(app::placementMap(tasks, summaries, usage));
    if (key == m_placementShown)
        return;
    m_placementShown = key;
    m_placement->clear();
    for (const auto& t : tasks) {
        QString strategy = t.strategy;
        if (!t.requestedStrategy.isEmpty() && t.requestedStrategy != t.strategy)
            strategy = tr("%1 (for %2)").arg(t.strategy, t.requestedStrategy);
        if (!t.jobTasks.isEmpty()) // one task of a synchronous job
            strategy = tr("%1: rank %2 of %3 tasks, %4 replica(s) in all")
                           .arg(strategy)
                           .arg(t.jobTasks.indexOf(t.task))
                           .arg(t.jobTasks.size())
                           .arg(t.totalReplicas);
        auto* task = new QTreeWidgetItem(m_placement, {tr("%1 on %2").arg(t.task, t.place), strategy,
                                                       tr("%1/step reduced").arg(bytes(t.reductionBytes))});
        task->setToolTip(0, tr("%1 runs on %2, which calls itself %3").arg(t.task, t.place, t.host));
        task->setToolTip(1, tr("reduction: %1; global batch %2 (%3 per replica); learning rate %4 -> %5 (%6)")
                                .arg(t.reduction).arg(t.globalBatch).arg(t.perReplicaBatch)
                                .arg(t.learningRate).arg(t.scaledLearningRate).arg(t.scalingRule));
        QMap<QString, QTreeWidgetItem*> devices;
        for (const auto& r : t.replicas) {
            QTreeWidgetItem*& device = devices[r.device];
            if (!device)
                device = new QTreeWidgetItem(task, {r.device, tr("device")});
            new QTreeWidgetItem(device, {tr("replica %1").arg(r.replica), tr("%n GEMM thread(s)", nullptr, r.threads)});
        }
        if (!t.reduction.isEmpty()) {
            auto* reduction = new QTreeWidgetItem(task, {tr("gradient reduction"), t.reduction,
                                                         tr("%1/step").arg(bytes(t.reductionBytes))});
            reduction->setToolTip(1, t.reduction);
            if (t.buckets > 0)
                reduction->setText(2, tr("%1/step in %n bucket(s) of up to %2", nullptr, int(t.buckets))
                                          .arg(bytes(t.reductionBytes), bytes(t.bucketBytes)));
            if (!t.jobTasks.isEmpty())
                new QTreeWidgetItem(reduction, {tr("across"), t.jobTasks.join(", ")});
        }
        if (!t.psTasks.isEmpty()) {
            new QTreeWidgetItem(task, {tr("parameter servers"), t.psTasks.join(", ")});
            new QTreeWidgetItem(task, {tr("workers"), t.workerTasks.join(", ")});
            new QTreeWidgetItem(task, {tr("partitioner"), t.partitioner.isEmpty() ? tr("none") : t.partitioner});
            new QTreeWidgetItem(task, {tr("staleness"), t.maxStaleness < 0 ? tr("asynchronous (no bound)")
                                                                             : tr("at most %1 step(s)").arg(t.maxStaleness)});
        }
        qint64 total = 0;
        auto* variables = new QTreeWidgetItem(task, {tr("variables"), tr("%n variable(s)", nullptr, t.variables.size())});
        for (const auto& v : t.variables) {
            auto* variable = new QTreeWidgetItem(variables, {v.name + ' ' + v.shape, v.devices.join(", "), bytes(v.bytes)});
            for (const auto& shard : v.shards)
                new QTreeWidgetItem(variable, {shard.name, tr("%1, rows %2..%3").arg(shard.ps).arg(shard.firstRow).arg(shard.endRow),
                                               bytes(shard.bytes)});
            total += v.bytes;
        }
        variables->setText(2, bytes(total));
        task->setExpanded(true);
        for (auto* device : devices)
            device->setExpanded(true);
    }
}

void DashboardPage::refreshLog()
{
    const QList<app::LogEntry> entries = app::logEntries(m_store, m_logShown);
    for (const auto& e : entries) {
        const QString time = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(e.time * 1000)).toString("HH:mm:ss");
        const QString line = QStringLiteral("%1  %2  %3  %4").arg(time, e.task, e.level, e.message);
        if (e.level == "error")
            m_log->appendHtml(QStringLiteral("<span style='color:%1'>%2</span>")
                                  .arg(theme::error(palette()).name(), line.toHtmlEscaped()));
        else
            m_log->appendPlainText(line);
    }
    m_logShown += static_cast<int>(entries.size());
}

void DashboardPage::showPlotMenu(PlotKind kind, const QPoint& at)
{
    SeriesPlot* plot = m_plots[kind];
    const QString name = m_titles[kind];
    QMenu menu(this);
    menu.addAction(tr("Reset view"), plot, &SeriesPlot::resetView);
    if (kind == ThroughputPlot) {
        QMenu* smoothing = menu.addMenu(tr("Smoothing"));
        const QList<std::pair<QString, app::Smoothing>> choices{
            {tr("None"), {}},
            {tr("EMA 0.6"), {app::Smoothing::Kind::Ema, 0.6, 10}},
            {tr("EMA 0.8 (default)"), kThroughputSmoothing},
            {tr("EMA 0.95"), {app::Smoothing::Kind::Ema, 0.95, 10}},
            {tr("Mean of 10 points"), {app::Smoothing::Kind::MovingAverage, 0.6, 10}}};
        for (const auto& [label, choice] : choices) {
            QAction* action = smoothing->addAction(label, this, [this, kind, s = choice] { setSmoothing(kind, s); });
            action->setCheckable(true);
            action->setChecked(m_sources[kind]->smoothing() == choice);
        }
    }
    menu.addAction(tr("Export image (PNG, SVG, PDF)..."), this, [this, plot, name] {
        const QString path = m_dialogs->saveFile(this, tr("Export %1").arg(name), name + ".png",
                                                 tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
        QString error;
        if (!path.isEmpty() && !plot->exportImage(path, &error))
            Q_EMIT message(error, true);
    });
    menu.addAction(tr("Export data (CSV)..."), this, [this, plot, name] {
        const QString path = m_dialogs->saveFile(this, tr("Export %1 data").arg(name), name + ".csv", tr("CSV (*.csv)"));
        QString error;
        if (!path.isEmpty() && !plot->exportCsv(path, &error))
            Q_EMIT message(error, true);
    });
    menu.exec(plot->mapToGlobal(at));
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
