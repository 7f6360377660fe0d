#include "ui/shell/main_window.h"

#include "app/experiment/recent_files.h"
#include "app/launch/unfollowed_runs.h"
#include "ui/setup/cluster_page.h"
#include "ui/history/compare_page.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/setup/data_page.h"
#include "ui/shell/dialog_prompter.h"
#include "ui/shell/dialogs.h"
#include "ui/shell/elided_text_tips.h"
#include "ui/history/history_page.h"
#include "ui/shell/message_banner.h"
#include "ui/setup/model_page.h"
#include "ui/dashboard/run_window.h"
#include "ui/setup/strategy_page.h"
#include "ui/history/sweep_panel.h"
#include "ui/setup/training_page.h"
#include "ui/setup/validation_panel.h"

#include <QApplication>
#include <QCloseEvent>
#include <QFileInfo>
#include <QListWidget>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

namespace strata::ui {

namespace {
// Where the window's size and layout are remembered (QSettings: the user's configuration).
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
const QString kDashboardKey = QStringLiteral("window/dashboard");
const QString kFileFilter = QObject::tr("Strata experiments (*.strata.json);;JSON files (*.json);;All files (*)");
}

MainWindow::MainWindow(const QString& enginePath, std::unique_ptr<Dialogs> dialogs, QWidget* parent)
    : QMainWindow(parent), m_engine(app::probeEngine(enginePath.isEmpty() ? app::defaultEnginePath() : enginePath)),
      m_dialogs(dialogs ? std::move(dialogs) : std::make_unique<Dialogs>()),
      m_prompter(new DialogPrompter(m_dialogs.get(), this)), m_banner(new MessageBanner(this)),
      m_nav(new QListWidget(this)), m_pages(new QStackedWidget(this))
{
    setObjectName("mainWindow");
    m_document.setHost(m_engine.host);

    m_strategy = new StrategyPage(&m_document, this);
    m_strategy->setHostDevices(m_engine.host.logicalCpus, m_engine.host.gpus);
    // Remote nodes are reached with the user's known_hosts; questions come as dialogs.
    // Secrets are remembered in the OS keyring when the user asks (and where one runs).
    app::ssh::SessionOptions options;
    options.keyring = &m_keyring;
    const app::RemoteAccess access{options, m_prompter};
    m_run.launcher().setRemoteAccess(access);
    m_cluster = new ClusterPage(&m_document, m_dialogs.get(), this);
    m_cluster->setNodeAccess(access, m_engine.path);
    m_model = new ModelPage(&m_document, m_dialogs.get(), this);
    m_data = new DataPage(&m_document, m_dialogs.get(), this);
    m_training = new TrainingPage(&m_document, this);
    m_dashboard = new DashboardPage(m_run.store(), &m_run, m_dialogs.get(), this);
    m_historyPage = new HistoryPage(&m_history, m_dialogs.get(), this);
    m_historyPage->setEnginePath(m_engine.path);
    m_compare = new ComparePage(&m_comparison, m_dialogs.get(), this);
    m_compare->sweepPanel()->setHostCpus(m_engine.host.logicalCpus);
    m_validation = new ValidationPanel(&m_document, this);

    const QList<std::pair<QString, QWidget*>> pages{
        {tr("Strategy"), m_strategy}, {tr("Cluster"), m_cluster},     {tr("Model"), m_model},
        {tr("Data"), m_data},         {tr("Training"), m_training},   {tr("Dashboard"), m_dashboard},
        {tr("History"), m_historyPage}, {tr("Compare"), m_compare}};
    for (const auto& [title, page] : pages) {
        m_nav->addItem(title);
        m_pages->addWidget(page);
    }
    m_nav->setObjectName("pageList");
    m_nav->setFixedWidth(m_nav->sizeHintForColumn(0) + 40);
    connect(m_nav, &QListWidget::currentRowChanged, this, [this](int row) {
        m_pages->setCurrentIndex(row);
        // The setup pages share the validation panel; the others have their own controls.
        m_validation->setVisible(row < DashboardPageIndex);
    });

    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_pages, 1);
    rightLayout->addWidget(m_validation);
    auto* body = new QHBoxLayout;
    body->addWidget(m_nav);
    body->addWidget(right, 1);
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->addWidget(m_banner);
    layout->addLayout(body, 1);
    setCentralWidget(central);

    createMenus();
    showElidedTextAsTips(this);
    auto report = [this](const QString& text, bool error) {
        error ? m_banner->showError(text) : m_banner->showInfo(text);
    };
    connect(m_model, &ModelPage::message, this, report);
    connect(m_cluster, &ClusterPage::message, this, report);
    connect(m_dashboard, &DashboardPage::message, this, report);
    connect(m_historyPage, &HistoryPage::message, this, report);
    connect(m_compare, &ComparePage::message, this, report);
    connect(m_historyPage, &HistoryPage::openRequested, this, &MainWindow::openRun);
    connect(m_historyPage, &HistoryPage::compareRequested, this, &MainWindow::compareRuns);
    connect(m_historyPage, &HistoryPage::reattachRequested, this, &MainWindow::reattach);
    connect(m_historyPage, &HistoryPage::resumeRequested, this, &MainWindow::resume);
    connect(m_compare->sweepPanel(), &SweepPanel::runRequested, this, &MainWindow::runSweep);
    connect(m_compare->sweepPanel(), &SweepPanel::stopRequested, &m_sweep, &app::StrategySweep::stop);
    connect(&m_sweep, &app::StrategySweep::variantStarted, this, [this](int index) {
        m_compare->sweepPanel()->showProgress(index, m_sweep.count(), m_sweep.variants()[index].label);
    });
    connect(&m_sweep, &app::StrategySweep::finished, this, [this](bool stopped, const QString& error) {
        QStringList dirs, labels;
        for (const auto& run : m_sweep.finishedRuns()) {
            dirs << run.runDir;
            labels << run.label;
        }
        QString loadError;
        if (!dirs.isEmpty() && !m_comparison.load(dirs, labels, &loadError))
            m_banner->showError(loadError);
        const QString done = tr("%1 of %2 strategies ran").arg(dirs.size()).arg(m_sweep.count());
        m_compare->sweepPanel()->showIdle(stopped ? tr("stopped: %1").arg(done) : done);
        if (!error.isEmpty())
            m_banner->showError(error);
        else
            m_banner->showInfo(stopped ? tr("Sweep stopped; %1. The finished runs are compared.").arg(done)
                                       : tr("Sweep done: %1, compared below.").arg(done));
        showPage(ComparePageIndex);
    });
    connect(m_validation, &ValidationPanel::launchRequested, this, &MainWindow::launch);
    connect(m_validation, &ValidationPanel::problemActivated, this, &MainWindow::showProblemField);
    connect(&m_document, &app::ExperimentDocument::dirtyChanged, this, &MainWindow::updateTitle);
    connect(&m_document, &app::ExperimentDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(&m_document, &app::ExperimentDocument::changed, this, &MainWindow::updateTitle);
    connect(&m_document, &app::ExperimentDocument::undoStateChanged, this, [this] {
        m_undo->setEnabled(m_document.canUndo());
        m_undo->setText(m_document.canUndo() ? tr("&Undo %1").arg(m_document.undoLabel()) : tr("&Undo"));
        m_redo->setEnabled(m_document.canRedo());
        m_redo->setText(m_document.canRedo() ? tr("&Redo %1").arg(m_document.redoLabel()) : tr("&Redo"));
    });
    connect(&m_document, &app::ExperimentDocument::validationChanged, this, &MainWindow::updateRunState);
    connect(&m_run, &app::RunController::started, this, [this] {
        if (m_launching) {
            m_launching = false;
            reportRun(tr("Running %1 in %2").arg(m_document.displayName(), m_run.runDir()), false);
            showPage(DashboardPageIndex);
        }
        updateRunState();
    });
    connect(&m_run, &app::RunController::launchFailed, this, [this](const QString& error) {
        // A node failed its check (the message names it and why), or Stop called the launch off.
        m_launching = false;
        m_banner->showError(error);
        updateRunState();
    });
    connect(&m_run, &app::RunController::finished, this, [this] {
        updateRunState();
        m_historyPage->refresh();
        // A sweep's runs are reported by the sweep (which may have ended just before this).
        if (const auto refusal = m_sweepLaunched ? std::nullopt : m_run.resumeRefusal()) {
            // Asked once this signal is delivered: the answer may launch again.
            QTimer::singleShot(0, this, [this, refusal = *refusal] { answerResumeRefusal(refusal); });
        } else if (!m_sweepLaunched) {
            reportRun(m_run.summary(), m_run.outcome() == app::RunOutcome::Failed);
        }
        if (m_closeAfterStop)
            close();
    });
    connect(&m_run, &app::RunController::historyError, this, [this](const QString& message) {
        m_historyProblem = tr("This run is not recorded in the run history: %1").arg(message);
    });

    // Runs still `running` in the history outlived the Strata that launched them: offered for
    // reattaching, unless another Strata follows them or they can never be followed again.
    QStringList problems;
    QString historyError;
    QList<qint64> unfollowed;
    if (m_history.open(app::RunHistory::defaultPath(), &historyError) &&
        app::unfollowedRuns(m_history, &unfollowed, &historyError)) {
        m_run.setHistory(&m_history, "app");
        m_historyPage->refresh(); // made before the history was open
    } else {
        problems << tr("Runs will not be recorded in the run history: %1").arg(historyError);
    }
    if (!m_engine.usable())
        problems.prepend(tr("The training engine cannot be used: %1").arg(m_engine.error));
    const QString offer = unfollowed.isEmpty() ? QString()
                          : unfollowed.size() == 1
                              ? tr("1 run went on without Strata: reattach it from the History page.")
                              : tr("%1 runs went on without Strata: reattach them from the History page.")
                                    .arg(unfollowed.size());
    if (!problems.isEmpty())
        m_banner->showError((problems + QStringList(offer)).join('\n').trimmed());
    else if (!offer.isEmpty())
        m_banner->showInfo(offer);
    m_nav->setCurrentRow(StrategyPageIndex);
    m_undo->setEnabled(false);
    m_redo->setEnabled(false);
    updateTitle();
    updateRunState();
    resize(1200, 820);
    restoreLayout();
}

MainWindow::~MainWindow()
{
    // The pages read the document, the run's store, the history and the comparison: they go
    // before those members do.
    delete centralWidget();
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, [this] {
        if (maybeSave())
            m_document.newDocument();
    });
    QMenu* examples = file->addMenu(tr("New from e&xample"));
    examples->setObjectName("examplesMenu");
    for (const auto& [name, path] : app::ExperimentDocument::examples())
        examples->addAction(name, this, [this, p = path] { newFromExample(p); });
    file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
        if (!maybeSave())
            return;
        const QString path = m_dialogs->openFile(this, tr("Open experiment"), kFileFilter);
        if (!path.isEmpty())
            openFile(path);
    });
    m_recentMenu = file->addMenu(tr("Open &recent"));
    m_recentMenu->setObjectName("recentMenu");
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::updateRecentMenu);
    updateRecentMenu();
    file->addSeparator();
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &As..."), QKeySequence::SaveAs, this, &MainWindow::saveAs);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    m_undo = edit->addAction(tr("&Undo"), QKeySequence::Undo, &m_document, &app::ExperimentDocument::undo);
    m_redo = edit->addAction(tr("&Redo"), QKeySequence::Redo, &m_document, &app::ExperimentDocument::redo);

    // Ctrl+1 to Ctrl+8: the pages in the list's order.
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->setObjectName("viewMenu");
    for (int page = 0; page < m_nav->count(); ++page) {
        QAction* go = view->addAction(m_nav->item(page)->text(), QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + page)), this,
                                      [this, page] { showPage(Page(page)); });
        go->setObjectName(QStringLiteral("showPage%1").arg(page + 1));
        m_nav->item(page)->setToolTip(go->shortcut().toString(QKeySequence::NativeText));
    }

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    m_launch = run->addAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("&Launch"), QKeySequence(Qt::CTRL | Qt::Key_R),
                              this, &MainWindow::launch);
    m_stop = run->addAction(style()->standardIcon(QStyle::SP_MediaStop), tr("&Stop"), QKeySequence(Qt::CTRL | Qt::Key_Period),
                            this, &MainWindow::stop);
    m_launch->setObjectName("launchAction");
    m_stop->setObjectName("stopAction");
    for (QAction* action : {m_launch, m_stop})
        action->setToolTip(QStringLiteral("%1 (%2)").arg(action->text().remove('&'),
                                                          action->shortcut().toString(QKeySequence::NativeText)));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Strata"), this, [this] {
        m_banner->showInfo(tr("Strata %1: configure, launch and watch distributed training runs. Engine: %2 (%3). "
                              "GPL-3.0-or-later.")
                               .arg(QApplication::applicationVersion(), m_engine.path,
                                    m_engine.version.isEmpty() ? tr("not usable") : m_engine.version));
    });

    QToolBar* toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName("runToolbar");
    toolbar->addAction(m_launch);
    toolbar->addAction(m_stop);
}

void MainWindow::restoreLayout()
{
    const QSettings settings;
    restoreGeometry(settings.value(kGeometryKey).toByteArray());
    restoreState(settings.value(kStateKey).toByteArray());
    m_dashboard->restoreLayout(settings.value(kDashboardKey).toByteArray());
}

void MainWindow::saveLayout()
{
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    settings.setValue(kDashboardKey, m_dashboard->saveLayout());
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    for (const auto& path : app::RecentFiles::list())
        m_recentMenu->addAction(path, this, [this, path] {
            if (maybeSave())
                openFile(path);
        });
    m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

void MainWindow::updateTitle()
{
    setWindowTitle(tr("%1[*] - Strata").arg(m_document.displayName()));
    setWindowModified(m_document.isDirty());
}

void MainWindow::updateRunState()
{
    const bool running = m_run.isRunning();
    QString blocker;
    if (!m_engine.usable())
        blocker = tr("The engine cannot be started: %1").arg(m_engine.error);
    else if (m_run.isChecking())
        blocker = tr("Checking the nodes...");
    else if (running)
        blocker = tr("A run is in progress.");
    m_validation->setLaunchBlocker(blocker);
    m_launch->setEnabled(m_validation->launchEnabled());
    m_stop->setEnabled(running);
}

void MainWindow::showPage(Page page) { m_nav->setCurrentRow(page); }

MainWindow::Page MainWindow::currentPage() const { return static_cast<Page>(m_nav->currentRow()); }

void MainWindow::showProblemField(const QString& path)
{
    const QString section = path.section(QRegularExpression("[.\\[]"), 0, 0);
    static const QMap<QString, Page> pages{{"strategy", StrategyPageIndex}, {"cluster", ClusterPageIndex},
                                           {"model", ModelPageIndex},       {"data", DataPageIndex},
                                           {"training", TrainingPageIndex}, {"seed", TrainingPageIndex}};
    if (!pages.contains(section))
        return;
    showPage(pages[section]);
    const QRegularExpressionMatch layer = QRegularExpression("^model\\.layers\\[(\\d+)\\]").match(path);
    if (layer.hasMatch())
        m_model->selectLayer(layer.captured(1).toInt());
}

bool MainWindow::maybeSave()
{
    if (!m_document.isDirty())
        return true;
    switch (m_dialogs->askToSave(this, m_document.displayName())) {
    case Dialogs::SaveChoice::Save: return save();
    case Dialogs::SaveChoice::Discard: return true;
    case Dialogs::SaveChoice::Cancel: return false;
    }
    return false;
}

bool MainWindow::openFile(const QString& path)
{
    QString error;
    if (!m_document.load(path, &error)) {
        m_banner->showError(error);
        return false;
    }
    app::RecentFiles::add(path);
    m_banner->hide();
    return true;
}

void MainWindow::newFromExample(const QString& path)
{
    if (!maybeSave())
        return;
    QString error;
    if (!m_document.newFromExample(path, &error))
        m_banner->showError(error);
}

bool MainWindow::save()
{
    if (m_document.filePath().isEmpty())
        return saveAs();
    QString error;
    if (!m_document.save(&error)) {
        m_banner->showError(error);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(m_document.filePath()), 4000);
    return true;
}

bool MainWindow::saveAs()
{
    QString path = m_dialogs->saveFile(this, tr("Save experiment"), m_document.displayName() + ".strata.json", kFileFilter);
    if (path.isEmpty())
        return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += ".strata.json";
    QString error;
    if (!m_document.saveAs(path, &error)) {
        m_banner->showError(error);
        return false;
    }
    app::RecentFiles::add(path);
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

bool MainWindow::launch()
{
    if (!m_validation->launchEnabled())
        return false;
    return startRun({}, app::ResumeChoice::Resume);
}

bool MainWindow::startRun(const QString& runDir, app::ResumeChoice choice)
{
    m_sweepLaunched = false;
    m_historyProblem.clear();
    m_launching = true; // `started` reports it: at once, or once the remote nodes passed their check
    QString error;
    if (!m_run.launch(m_document, m_engine.path, runDir, &error, choice)) {
        m_launching = false;
        m_banner->showError(error);
        updateRunState();
        return false;
    }
    if (m_run.isChecking())
        m_banner->showInfo(tr("Checking the nodes... %1 starts once every node is ready (Stop calls it off).")
                               .arg(m_document.displayName()));
    updateRunState();
    return true;
}

bool MainWindow::resume(qint64 runId)
{
    QString error;
    const std::optional<app::RunRecord> record = m_history.run(runId, &error);
    if (record && (m_run.isRunning() || m_run.isChecking()))
        error = tr("a run is in progress here (stop it, or wait for its end)");
    else if (record && !m_validation->launchEnabled())
        error = tr("the experiment cannot be launched as it is (see its problems)");
    else if (record)
        return startRun(record->runDir, app::ResumeChoice::Resume);
    m_banner->showError(tr("Cannot resume run #%1: %2").arg(runId).arg(error));
    return false;
}

void MainWindow::answerResumeRefusal(const app::ResumeRefusal& refusal)
{
    const QString runDir = m_run.runDir();
    const auto answer = m_dialogs->askResumeChoice(this, runDir, refusal.differences, refusal.weightsOnly);
    if (answer == Dialogs::ResumeAnswer::Cancel) {
        reportRun(tr("Not resumed: the checkpoints in %1 are of a different experiment; they were left as they "
                     "are.\n%2").arg(runDir, refusal.differences.join('\n')),
                  true);
        return;
    }
    startRun(runDir, answer == Dialogs::ResumeAnswer::Fresh ? app::ResumeChoice::Fresh
                                                            : app::ResumeChoice::WeightsOnly);
}

bool MainWindow::reattach(qint64 runId)
{
    QString error;
    const std::optional<app::RunRecord> record = m_history.run(runId, &error);
    if (record && m_run.isRunning()) {
        error = tr("a run is in progress here (stop it, or wait for its end)");
    } else if (record) {
        m_sweepLaunched = false;
        m_launching = false;
        m_historyProblem.clear();
        if (m_run.reattach(*record, m_engine.path, &error)) {
            m_banner->showInfo(tr("Following run #%1 %2 again: what it did meanwhile, then live.")
                                   .arg(runId)
                                   .arg(record->displayName()));
            showPage(DashboardPageIndex);
            updateRunState();
            return true;
        }
    }
    m_banner->showError(tr("Cannot reattach run #%1: %2").arg(runId).arg(error));
    return false;
}

RunWindow* MainWindow::openRun(qint64 runId)
{
    QString error;
    const std::optional<app::RunRecord> run = m_history.run(runId, &error);
    RunWindow* window = run ? RunWindow::open(run->runDir, tr("Run #%1 %2").arg(runId).arg(run->displayName()),
                                              m_dialogs.get(), &error, this)
                            : nullptr;
    if (!window) {
        m_banner->showError(tr("Cannot open run #%1: %2").arg(runId).arg(error));
        return nullptr;
    }
    window->show();
    return window;
}

bool MainWindow::compareRuns(const QList<qint64>& runIds)
{
    QStringList refs;
    for (qint64 id : runIds)
        refs << QString::number(id);
    QStringList dirs, labels;
    QString error;
    if (!app::resolveRunRefs(refs, &dirs, &labels, &error, &m_history) || !m_comparison.load(dirs, labels, &error)) {
        m_banner->showError(tr("Cannot compare these runs: %1").arg(error));
        return false;
    }
    showPage(ComparePageIndex);
    return true;
}

bool MainWindow::runSweep(const QList<app::SweepVariant>& variants)
{
    QString error;
    if (!m_engine.usable() || !m_sweep.start(m_document, variants, m_engine.path, &error)) {
        m_banner->showError(m_engine.usable() ? error : tr("The engine cannot be started: %1").arg(m_engine.error));
        return false;
    }
    m_sweepLaunched = true;
    m_banner->showInfo(tr("Running %1 under %n strateg(ies), one after another.", nullptr, int(variants.size()))
                           .arg(m_document.displayName()));
    updateRunState();
    return true;
}

void MainWindow::reportRun(const QString& text, bool error)
{
    if (m_historyProblem.isEmpty())
        error ? m_banner->showError(text) : m_banner->showInfo(text);
    else
        m_banner->showError(text + "\n" + m_historyProblem);
}

void MainWindow::stop()
{
    if (m_run.isChecking()) {
        m_run.stop(); // nothing started: `launchFailed` says the launch was called off
        return;
    }
    if (m_run.isRunning()) {
        m_run.stop();
        m_banner->showInfo(tr("Stopping: the engine writes a checkpoint and ends (killed if it does not within 10 s)."));
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!m_closeAfterStop && !maybeSave()) {
        event->ignore();
        return;
    }
    if (m_run.isChecking())
        stop(); // nothing started yet
    if (m_run.isRunning() && !m_closeAfterStop) {
        switch (m_dialogs->askAboutRunningRun(this, QFileInfo(m_run.runDir()).fileName())) {
        case Dialogs::RunningChoice::LeaveRunning:
            // The job does not depend on the window: only the launcher's followers go with it,
            // and the next window offers to follow it again.
            saveLayout();
            event->accept();
            return;
        case Dialogs::RunningChoice::Cancel:
            event->ignore();
            return;
        case Dialogs::RunningChoice::Stop:
            break;
        }
    }
    if (m_run.isRunning()) {
        // Leave only once the engines are gone: they checkpoint and every event is kept.
        m_closeAfterStop = true;
        stop();
        event->ignore();
        return;
    }
    saveLayout();
    event->accept();
}

} // namespace strata::ui
