#include "ui/shell/screenshot_tour.h"

#include "app/experiment/cluster_editing.h"
#include "app/metrics/placement.h"
#include "app/history/history_model.h"
#include "ui/history/history_page.h"
#include "ui/setup/cluster_page.h"
#include "ui/shell/main_window.h"
#include "ui/shell/message_banner.h"
#include "ui/shell/theme.h"
#include "ui/setup/model_page.h"
#include "ui/compare/compare_page.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/dashboard/placement_map_view.h"
#include "ui/dashboard/timeline_view.h"
#include "ui/dashboard/worker_heatmap_view.h"
#include "ui/plan/plan_page.h"
#include "ui/compare/sweep_panel.h"

#include <QApplication>
#include <QCursor>
#include <QDeadlineTimer>
#include <QDir>
#include <QTabWidget>
#include <QDoubleSpinBox>
#include <QPixmap>
#include <QThread>

#include <cstdio>

namespace strata::ui {

namespace {
void settle(int ms)
{
    const QDeadlineTimer deadline(ms);
    while (!deadline.hasExpired()) {
        QApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(5);
    }
}

bool grab(MainWindow& window, const QString& directory, const QString& name)
{
    // The mouse on the menu bar's empty end, off every plot (whose toolbar it would show).
    QCursor::setPos(window.mapToGlobal(QPoint(window.width() - 4, 4)));
    settle(300);
    const QString path = QDir(directory).filePath(name + ".png");
    if (!window.grab().save(path)) {
        std::fprintf(stderr, "strata: cannot write %s\n", qPrintable(path));
        return false;
    }
    std::fprintf(stderr, "strata: wrote %s\n", qPrintable(path));
    return true;
}

// The Cluster page once Check nodes has every node's result.
bool grabCheckedCluster(MainWindow& window, const QString& directory)
{
    window.showPage(MainWindow::ClusterPageIndex);
    window.clusterPage()->checkNodes();
    const QDeadlineTimer deadline(60000);
    while (window.clusterPage()->isChecking() && !deadline.hasExpired())
        settle(100);
    return grab(window, directory, "2-cluster");
}

// The Cluster page with the experiment's tasks as a Slurm job on GPU nodes, as a user sets it up.
bool grabSlurmCluster(MainWindow& window, const QString& directory)
{
    app::ClusterEditing cluster(window.document());
    cluster.setSlurmJob(true);
    cluster.setSlurmPartition(QStringLiteral("gpu"));
    const app::SlurmJob job = cluster.slurmJob();
    cluster.setSlurmNodes(job.nodes * job.tasksPerNode);
    cluster.setSlurmTasksPerNode(1);
    cluster.setSlurmCpusPerTask(8);
    cluster.setSlurmGpusPerTask(1);
    cluster.setSlurmTimeLimit(QStringLiteral("12:00:00"));
    cluster.setSlurmAccount(QStringLiteral("ml-team"));
    cluster.setSlurmExtraSbatch({QStringLiteral("--mem=64G"), QStringLiteral("--constraint=a100")});
    window.showPage(MainWindow::ClusterPageIndex);
    return grab(window, directory, "cluster-slurm");
}

// A Slurm job of the experiment's tasks (one a node) on the cluster SLURM_CONF names, whose
// partition another job fills for a while (scripts/screenshots.sh): the dashboard while the job
// waits, with Slurm's reason, and History's row of it; then the dashboard once it runs.
bool grabSlurmRun(MainWindow& window, const QString& directory)
{
    app::ClusterEditing cluster(window.document());
    cluster.setSlurmJob(true);
    const app::SlurmJob job = cluster.slurmJob();
    cluster.setSlurmNodes(job.nodes * job.tasksPerNode);
    cluster.setSlurmTasksPerNode(1);
    if (!window.launch()) {
        std::fprintf(stderr, "strata: %s\n", qPrintable(window.banner()->text()));
        return false;
    }
    const auto anyState = [&](const QString& prefix) {
        const QList<app::TaskSummary> tasks = app::taskSummaries(window.run().store());
        return std::any_of(tasks.begin(), tasks.end(), [&](const app::TaskSummary& t) { return app::stateText(t).startsWith(prefix); });
    };
    QDeadlineTimer deadline(60000);
    while (window.run().isRunning() && !anyState(QStringLiteral("pending")) && !deadline.hasExpired())
        settle(100);
    if (!anyState(QStringLiteral("pending")) || !grab(window, directory, "slurm-pending"))
        return false;
    // History, where the run's row says what Slurm says of its job.
    window.showPage(MainWindow::HistoryPageIndex);
    app::HistoryModel* history = window.historyPage()->model();
    const auto rowSays = [&](const QString& text) {
        return history->rowCount() > 0 &&
               history->index(0, app::HistoryModel::StatusColumn).data().toString().contains(text);
    };
    deadline.setRemainingTime(30000);
    while (!rowSays(QStringLiteral("PENDING")) && !deadline.hasExpired())
        settle(100);
    if (!rowSays(QStringLiteral("PENDING")) || !grab(window, directory, "slurm-history"))
        return false;
    window.showPage(MainWindow::DashboardPageIndex);
    deadline.setRemainingTime(120000);
    while (window.run().isRunning() && window.run().store().progress().fraction < 0.4 && !deadline.hasExpired())
        settle(100);
    if (!anyState(QStringLiteral("running")) || !grab(window, directory, "slurm-running"))
        return false;
    window.stop();
    while (window.run().isRunning())
        settle(100);
    return true;
}

// What grabDashboard saves beside the dashboard itself.
struct DashboardShots {
    QStringList tabs;  // the lower tabs' titles: the dashboard with each shown, as `name`-<index>
    bool map = false;  // the placement map whole, as `name`-map
    bool dark = false; // the dashboard in a dark palette, its placement map shown, as `name`-dark
    QSize alsoAt;      // the dashboard again with the window at this size, as `name`-WxH
    bool ended = false; // once the run has ended (else well under way)
    bool heatmap = false; // the workers' heatmap maximised, as `name`-heatmap
};

void showTab(MainWindow& window, const QString& title)
{
    auto* lower = window.dashboard()->findChild<QTabWidget*>("dashboardTabs");
    for (int i = 0; lower && i < lower->count(); ++i)
        if (lower->tabText(i) == title && lower->isTabVisible(i))
            lower->setCurrentIndex(i);
}

// Launches the run and saves its dashboard once it is well under way (at most `waitMs` later),
// and `shots`.
bool grabDashboard(MainWindow& window, const QString& directory, const QString& name, int waitMs,
                   const DashboardShots& shots)
{
    if (!window.launch()) {
        std::fprintf(stderr, "strata: %s\n", qPrintable(window.banner()->text()));
        return false;
    }
    const QDeadlineTimer deadline(waitMs);
    while (window.run().isRunning() && (shots.ended || window.run().store().progress().fraction < 0.6) &&
           !deadline.hasExpired())
        settle(100);
    if (!window.run().isRunning() && window.run().store().eventCount() == 0) {
        std::fprintf(stderr, "strata: the run did not start: %s\n", qPrintable(window.banner()->text()));
        return false;
    }
    if (!grab(window, directory, name))
        return false;
    for (qsizetype t = 0; t < shots.tabs.size(); ++t) {
        showTab(window, shots.tabs[t]);
        if (!grab(window, directory, name + "-" + QString::number(t + 1)))
            return false;
    }
    if (shots.heatmap) {
        WorkerHeatmapView* heatmap = window.dashboard()->workerHeatmap();
        heatmap->setMaximized(true);
        const bool saved = grab(window, directory, name + "-heatmap");
        heatmap->setMaximized(false);
        if (!saved)
            return false;
    }
    if (shots.alsoAt.isValid()) {
        const QSize size = window.size();
        window.resize(shots.alsoAt);
        const bool saved = grab(window, directory, QStringLiteral("%1-%2x%3").arg(name).arg(shots.alsoAt.width()).arg(shots.alsoAt.height()));
        window.resize(size);
        if (!saved)
            return false;
    }
    // The placement map whole (the dashboard shows it in a scrolled tab).
    if (shots.map) {
        const QString path = QDir(directory).filePath(name + "-map.png");
        if (!window.dashboard()->placementMap()->grab().save(path))
            return false;
        std::fprintf(stderr, "strata: wrote %s\n", qPrintable(path));
    }
    if (shots.dark) {
        showTab(window, QObject::tr("Placement map"));
        const QPalette light = QApplication::palette();
        QApplication::setPalette(theme::darkPalette());
        const bool saved = grab(window, directory, name + "-dark");
        QApplication::setPalette(light);
        if (!saved)
            return false;
    }
    window.stop();
    while (window.run().isRunning())
        settle(100);
    return true;
}
} // namespace

namespace {
// Saves `name` at the window's size, and at `alsoAt` as `name`-WxH.
bool grabAtSizes(MainWindow& window, const QString& directory, const QString& name, QSize alsoAt)
{
    if (!grab(window, directory, name))
        return false;
    const QSize size = window.size();
    window.resize(alsoAt);
    const bool saved = grab(window, directory, QStringLiteral("%1-%2x%3").arg(name).arg(alsoAt.width()).arg(alsoAt.height()));
    window.resize(size);
    return saved;
}

// The Timeline panel on a run under way (its tab chosen shows it maximised): 16-timeline, and
// at 1280x720 16-timeline-1280x720.
bool grabTimeline(MainWindow& window, const QString& directory)
{
    if (!window.launch()) {
        std::fprintf(stderr, "strata: %s\n", qPrintable(window.banner()->text()));
        return false;
    }
    TimelineView* timeline = window.dashboard()->timeline();
    // Well into the run: its clock offsets settled, a few hundred steps taken.
    const QDeadlineTimer deadline(120000);
    while (window.run().isRunning() && window.run().store().progress().step < 400 && !deadline.hasExpired())
        settle(100);
    showTab(window, QObject::tr("Timeline"));
    settle(500);
    if (timeline->timeline().empty()) {
        std::fprintf(stderr, "strata: the run recorded no step timelines\n");
        return false;
    }
    const bool saved = grabAtSizes(window, directory, "16-timeline", QSize(1280, 720));
    window.stop();
    while (window.run().isRunning())
        settle(100);
    return saved;
}

// The Plan page from a real probe of the experiment on this machine.
bool grabPlan(MainWindow& window, const QString& directory)
{
    window.showPage(MainWindow::PlanPageIndex);
    app::plan::PlanSession& planner = window.session().planner();
    bool failed = false;
    QObject::connect(&planner, &app::plan::PlanSession::failed, &window, [&failed] { failed = true; });
    if (!planner.probe())
        return false;
    const QDeadlineTimer deadline(600000);
    while (planner.probing() && !deadline.hasExpired())
        settle(100);
    if (failed || !planner.plan()) {
        std::fprintf(stderr, "strata: the probe gave no plan: %s\n", qPrintable(window.banner()->text()));
        return false;
    }
    return grabAtSizes(window, directory, "17-plan", QSize(1280, 720));
}

// A real comparison: the same MLP under OneDevice, Mirrored and CentralStorage, 3 epochs each.
bool grabComparison(MainWindow& window, const QString& directory)
{
    window.document().setValue("/training/epochs", 3);
    window.showPage(MainWindow::ComparePageIndex);
    if (!window.runSweep(window.comparePage()->sweepPanel()->variants())) {
        std::fprintf(stderr, "strata: %s\n", qPrintable(window.banner()->text()));
        return false;
    }
    const QDeadlineTimer sweepDeadline(300000);
    while (window.sweep().isRunning() && !sweepDeadline.hasExpired())
        settle(100);
    if (window.comparison().runCount() < 2) {
        std::fprintf(stderr, "strata: the sweep did not give a comparison: %s\n", qPrintable(window.banner()->text()));
        return false;
    }
    window.comparePage()->findChild<QDoubleSpinBox*>("targetLoss")->setValue(0.45);
    return grab(window, directory, "7-compare");
}
} // namespace

int takeScreenshots(const QString& directory, const QString& experiment, const QString& enginePath, Tour tour,
                    QSize windowSize)
{
    if (!QDir().mkpath(directory)) {
        std::fprintf(stderr, "strata: cannot create %s\n", qPrintable(directory));
        return 1;
    }
    MainWindow window(enginePath);
    if (!experiment.isEmpty() && !window.openFile(experiment)) {
        std::fprintf(stderr, "strata: %s\n", qPrintable(window.banner()->text()));
        return 2;
    }
    window.resize(windowSize);
    window.show();
    // As it is (64 engines on two cores take long enough), once it has ended: every worker's
    // steps in (while it runs, the window follows 64 streams a refresh behind).
    if (tour == Tour::Large)
        return grabDashboard(window, directory, "15-large-job", 300000,
                             {{QObject::tr("Placement map"), QObject::tr("Timeline")}, true, false, QSize(1280, 720), true, true})
                   ? 0
                   : 1;
    if (tour == Tour::Plan)
        return grabPlan(window, directory) ? 0 : 1;
    // Long enough to be caught half way.
    window.document().setValue("/training/epochs", 30);
    if (tour == Tour::Slurm)
        return grabSlurmCluster(window, directory) ? 0 : 1;
    if (tour == Tour::SlurmRun)
        return grabSlurmRun(window, directory) ? 0 : 1;
    if (tour == Tour::Timeline)
        return grabTimeline(window, directory) ? 0 : 1;
    if (tour != Tour::Full) {
        const bool shown = grabCheckedCluster(window, directory) &&
                           grabDashboard(window, directory, "6-dashboard", 60000,
                                         {{QObject::tr("Placement map"), QObject::tr("Staleness"),
                                           QObject::tr("Parameter servers")},
                                          true});
        return shown && (tour == Tour::Short || grabComparison(window, directory)) ? 0 : 1;
    }
    const QList<std::pair<MainWindow::Page, QString>> pages{{MainWindow::StrategyPageIndex, "1-strategy"},
                                                           {MainWindow::ModelPageIndex, "3-model"},
                                                           {MainWindow::DataPageIndex, "4-data"},
                                                           {MainWindow::TrainingPageIndex, "5-training"}};
    for (const auto& [page, name] : pages) {
        window.showPage(page);
        if (page == MainWindow::ModelPageIndex)
            window.findChild<ModelPage*>()->selectLayer(1);
        if (!grab(window, directory, name))
            return 1;
    }
    if (!grabCheckedCluster(window, directory) ||
        !grabDashboard(window, directory, "6-dashboard", 120000, {{}, true, true}) || !grabComparison(window, directory))
        return 1;
    window.showPage(MainWindow::HistoryPageIndex);
    return grab(window, directory, "8-history") ? 0 : 1;
}

} // namespace strata::ui
