#include "ui/shell/main_window.h"

#include "app/experiment/recent_files.h"
#include "app/session/documentation.h"
#include "ui/setup/cluster_page.h"
#include "ui/compare/compare_page.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/setup/data_page.h"
#include "ui/shell/dialog_prompter.h"
#include "ui/shell/dialogs.h"
#include "ui/shell/elided_text_tips.h"
#include "ui/shell/icons.h"
#include "ui/shell/shortcuts_dialog.h"
#include "ui/shell/theme.h"
#include "ui/history/history_page.h"
#include "ui/shell/message_banner.h"
#include "ui/setup/model_page.h"
#include "ui/dashboard/run_window.h"
#include "ui/setup/strategy_page.h"
#include "ui/compare/sweep_panel.h"
#include "ui/setup/training_page.h"
#include "ui/setup/validation_panel.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QFileInfo>
#include <QListWidget>
#include <QMenuBar>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolBar>
#include <QUrl>
#include <QVBoxLayout>

namespace strata::ui {

namespace {
// Where the window's size and layout are remembered (QSettings: the user's configuration).
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
const QString kDashboardKey = QStringLiteral("window/dashboard");
const QString kFileFilter = QObject::tr("Strata experiments (*.strata.json);;JSON files (*.json);;All files (*)");
// The page an entry of the page list shows (none on the group headers).
constexpr int kPageRole = Qt::UserRole;
// The pages' icons (icons::icon), by Page.
const char* const kPageIcons[] = {"strategy", "cluster", "model", "data", "training", "dashboard", "history", "compare"};
} // namespace

MainWindow::MainWindow(const QString& enginePath, std::unique_ptr<Dialogs> dialogs, QWidget* parent)
    : QMainWindow(parent), m_session(enginePath), m_dialogs(dialogs ? std::move(dialogs) : std::make_unique<Dialogs>()),
      m_prompter(new DialogPrompter(m_dialogs.get(), this)), m_banner(new MessageBanner(this)),
      m_nav(new QListWidget(this)), m_pages(new QStackedWidget(this))
{
    setObjectName("mainWindow");
    setWindowIcon(icons::appIcon());
    app::ExperimentDocument& document = m_session.document();
    const app::EngineInfo& engine = m_session.engine();
    // SSH questions (host keys, passwords) come as the window's dialogs.
    m_session.setPrompter(m_prompter);
    m_session.setResumeAsker(this);

    m_strategy = new StrategyPage(&document, this);
    m_strategy->setHostDevices(engine.host.logicalCpus, engine.host.gpus);
    m_cluster = new ClusterPage(&document, m_dialogs.get(), this);
    m_cluster->setNodeAccess(m_session.remoteAccess(), engine.path);
    m_model = new ModelPage(&document, m_dialogs.get(), this);
    m_data = new DataPage(&document, m_dialogs.get(), this);
    m_training = new TrainingPage(&document, this);
    m_dashboard = new DashboardPage(run().store(), &run(), m_dialogs.get(), this);
    m_historyPage = new HistoryPage(&history(), m_dialogs.get(), this);
    m_historyPage->setEnginePath(engine.path);
    m_compare = new ComparePage(&comparison(), m_dialogs.get(), this);
    m_compare->sweepPanel()->setHostCpus(engine.host.logicalCpus);
    m_validation = new ValidationPanel(&document, this);
    buildPageList();

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
    applyLooks();
    showElidedTextAsTips(this);
    auto report = [this](const QString& text, bool error) {
        error ? m_banner->showError(text) : m_banner->showInfo(text);
    };
    connect(&m_session, &app::WindowSession::message, this, report);
    connect(m_model, &ModelPage::message, this, report);
    connect(m_cluster, &ClusterPage::message, this, report);
    connect(m_dashboard, &DashboardPage::message, this, report);
    connect(m_historyPage, &HistoryPage::message, this, report);
    connect(m_compare, &ComparePage::message, this, report);
    connect(m_historyPage, &HistoryPage::openRequested, this, &MainWindow::openRun);
    connect(m_historyPage, &HistoryPage::compareRequested, &m_session, &app::WindowSession::compareRuns);
    connect(m_historyPage, &HistoryPage::reattachRequested, &m_session, &app::WindowSession::reattach);
    connect(m_historyPage, &HistoryPage::resumeRequested, &m_session, &app::WindowSession::resume);
    connect(m_compare->sweepPanel(), &SweepPanel::runRequested, &m_session, &app::WindowSession::runSweep);
    connect(m_compare->sweepPanel(), &SweepPanel::stopRequested, &sweep(), &app::StrategySweep::stop);
    connect(&m_session, &app::WindowSession::sweepProgress, m_compare->sweepPanel(), &SweepPanel::showProgress);
    connect(&m_session, &app::WindowSession::sweepEnded, m_compare->sweepPanel(), &SweepPanel::showIdle);
    connect(&m_session, &app::WindowSession::showRequested, this, [this](app::WindowSession::View view) {
        showPage(view == app::WindowSession::View::Dashboard ? DashboardPageIndex : ComparePageIndex);
    });
    connect(&m_session, &app::WindowSession::historyChanged, m_historyPage, &HistoryPage::refresh);
    connect(&m_session, &app::WindowSession::runStateChanged, this, &MainWindow::updateRunState);
    connect(&m_session, &app::WindowSession::runFinished, this, [this] {
        if (m_closeAfterStop)
            close();
    });
    connect(m_validation, &ValidationPanel::launchRequested, this, &MainWindow::launch);
    connect(m_validation, &ValidationPanel::problemActivated, this, &MainWindow::showProblemField);
    connect(&document, &app::ExperimentDocument::dirtyChanged, this, &MainWindow::updateTitle);
    connect(&document, &app::ExperimentDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(&document, &app::ExperimentDocument::changed, this, &MainWindow::updateTitle);
    connect(&document, &app::ExperimentDocument::undoStateChanged, this, [this] {
        const app::ExperimentDocument& doc = m_session.document();
        m_undo->setEnabled(doc.canUndo());
        m_undo->setText(doc.canUndo() ? tr("&Undo %1").arg(doc.undoLabel()) : tr("&Undo"));
        m_redo->setEnabled(doc.canRedo());
        m_redo->setText(doc.canRedo() ? tr("&Redo %1").arg(doc.redoLabel()) : tr("&Redo"));
    });
    connect(&document, &app::ExperimentDocument::validationChanged, this, &MainWindow::updateRunState);

    m_session.openHistory(app::RunHistory::defaultPath());
    showPage(StrategyPageIndex);
    m_undo->setEnabled(false);
    m_redo->setEnabled(false);
    updateTitle();
    updateRunState();
    resize(QSize(1200, 820).boundedTo(screen()->availableSize()));
    restoreLayout();
}

MainWindow::~MainWindow()
{
    // The pages read the document, the run's store, the history and the comparison: they go
    // before the session does.
    delete centralWidget();
}

void MainWindow::buildPageList()
{
    struct Entry {
        Page page;
        QString title;
        QWidget* widget;
    };
    const QList<Entry> pages{{StrategyPageIndex, tr("Strategy"), m_strategy}, {ClusterPageIndex, tr("Cluster"), m_cluster},
                             {ModelPageIndex, tr("Model"), m_model},          {DataPageIndex, tr("Data"), m_data},
                             {TrainingPageIndex, tr("Training"), m_training}, {DashboardPageIndex, tr("Dashboard"), m_dashboard},
                             {HistoryPageIndex, tr("History"), m_historyPage}, {ComparePageIndex, tr("Compare"), m_compare}};
    // The groups' first pages: what is set up, where it runs, what is looked at afterwards.
    const QMap<Page, QString> groups{
        {StrategyPageIndex, tr("Setup")}, {DashboardPageIndex, tr("Run")}, {HistoryPageIndex, tr("Analyse")}};
    m_nav->setObjectName("pageList");
    m_pages->setObjectName("pages");
    m_nav->setIconSize(QSize(20, 20));
    for (const Entry& entry : pages) {
        if (groups.contains(entry.page)) {
            auto* header = new QListWidgetItem(groups[entry.page].toUpper(), m_nav);
            header->setFlags(Qt::NoItemFlags); // never selected, skipped by the arrow keys
            QFont font = m_nav->font();
            font.setBold(true);
            font.setPointSizeF(font.pointSizeF() * 0.85);
            header->setFont(font);
        }
        auto* item = new QListWidgetItem(entry.title, m_nav);
        item->setData(kPageRole, int(entry.page));
        m_pageItems << item;
        // A page larger than the window scrolls: it neither pushes the window past a small
        // screen (1280x720) nor, through the stack, makes the other pages as large.
        auto* scroll = new QScrollArea(m_pages);
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setWidgetResizable(true);
        scroll->setWidget(entry.widget);
        m_pages->addWidget(scroll);
    }
    connect(m_nav, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
        if (!item || !item->data(kPageRole).isValid())
            return;
        const int page = item->data(kPageRole).toInt();
        m_pages->setCurrentIndex(page);
        // The setup pages share the validation panel; the others have their own controls.
        m_validation->setVisible(page < DashboardPageIndex);
    });
}

void MainWindow::createMenus()
{
    app::ExperimentDocument& document = m_session.document();
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, [this] {
        if (maybeSave())
            m_session.document().newDocument();
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
    m_undo = edit->addAction(tr("&Undo"), QKeySequence::Undo, &document, &app::ExperimentDocument::undo);
    m_redo = edit->addAction(tr("&Redo"), QKeySequence::Redo, &document, &app::ExperimentDocument::redo);

    // Ctrl+1 to Ctrl+8: the pages in the list's order.
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->setObjectName("viewMenu");
    for (int page = 0; page < PageCount; ++page) {
        QAction* go = view->addAction(m_pageItems[page]->text(), QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + page)), this,
                                      [this, page] { showPage(Page(page)); });
        go->setObjectName(QStringLiteral("showPage%1").arg(page + 1));
        m_iconActions.append({go, kPageIcons[page]});
        m_pageItems[page]->setToolTip(go->shortcut().toString(QKeySequence::NativeText));
    }
    view->addSeparator();
    QMenu* themes = view->addMenu(tr("&Theme"));
    themes->setObjectName("themeMenu");
    auto* schemes = new QActionGroup(themes);
    for (const auto& [scheme, title] : {std::pair{theme::Scheme::Desktop, tr("As the &desktop")},
                                        std::pair{theme::Scheme::Light, tr("&Light")},
                                        std::pair{theme::Scheme::Dark, tr("D&ark")}}) {
        QAction* choose = themes->addAction(title, this, [s = scheme] { theme::setScheme(s); });
        choose->setCheckable(true);
        choose->setChecked(scheme == theme::savedScheme());
        schemes->addAction(choose);
    }

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    m_launch = run->addAction(tr("&Launch"), QKeySequence(Qt::CTRL | Qt::Key_R), this, &MainWindow::launch);
    m_stop = run->addAction(tr("&Stop"), QKeySequence(Qt::CTRL | Qt::Key_Period), this, &MainWindow::stop);
    m_launch->setObjectName("launchAction");
    m_stop->setObjectName("stopAction");
    m_iconActions.append({m_launch, "launch"});
    m_iconActions.append({m_stop, "stop"});
    for (QAction* action : {m_launch, m_stop})
        action->setToolTip(QStringLiteral("%1 (%2)").arg(action->text().remove('&'),
                                                          action->shortcut().toString(QKeySequence::NativeText)));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName("helpMenu");
    QAction* shortcuts = help->addAction(tr("&Keyboard shortcuts"), this, [this] {
        auto* dialog = new ShortcutsDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
    shortcuts->setObjectName("shortcutsAction");
    QAction* docs = help->addAction(tr("&Documentation"), this, &MainWindow::openDocumentation);
    docs->setObjectName("documentationAction");
    m_iconActions.append({shortcuts, "keyboard"});
    m_iconActions.append({docs, "documentation"});
    help->addSeparator();
    help->addAction(tr("&About Strata"), this, [this] {
        const app::EngineInfo& engine = m_session.engine();
        m_banner->showInfo(tr("Strata %1: configure, launch and watch distributed training runs. Engine: %2 (%3). "
                              "GPL-3.0-or-later.")
                               .arg(QApplication::applicationVersion(), engine.path,
                                    engine.version.isEmpty() ? tr("not usable") : engine.version));
    });

    // Labelled buttons: what they do reads without hovering.
    QToolBar* toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName("runToolbar");
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->setIconSize(QSize(18, 18));
    toolbar->addAction(m_launch);
    toolbar->addAction(m_stop);
}

void MainWindow::applyLooks()
{
    const QString sheet = theme::styleSheet(palette());
    if (styleSheet() != sheet)
        setStyleSheet(sheet);
    for (int page = 0; page < PageCount; ++page)
        m_pageItems[page]->setIcon(icons::icon(kPageIcons[page], palette()));
    for (const auto& [action, name] : m_iconActions)
        action->setIcon(icons::icon(name, palette()));
    // Wide enough for the longest entry with its icon and the stylesheet's padding.
    m_nav->setFixedWidth(m_nav->sizeHintForColumn(0) + 2 * m_nav->frameWidth() + 16);
}

void MainWindow::changeEvent(QEvent* event)
{
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_launch) // built
        applyLooks();
}

void MainWindow::openDocumentation()
{
    QStringList looked;
    const QString path = app::documentationPath(&looked);
    if (path.isEmpty())
        m_banner->showError(tr("No documentation found; looked for:\n%1").arg(looked.join('\n')));
    else if (!QDesktopServices::openUrl(QUrl::fromLocalFile(path)))
        m_banner->showError(tr("Cannot open %1: no application opens it here.").arg(path));
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
    setWindowTitle(tr("%1[*] - Strata").arg(m_session.document().displayName()));
    setWindowModified(m_session.document().isDirty());
}

void MainWindow::updateRunState()
{
    m_validation->setLaunchBlocker(m_session.launchBlocker());
    m_launch->setEnabled(m_validation->launchEnabled());
    m_stop->setEnabled(run().isRunning());
}

void MainWindow::showPage(Page page) { m_nav->setCurrentItem(m_pageItems[page]); }

MainWindow::Page MainWindow::currentPage() const
{
    const QListWidgetItem* item = m_nav->currentItem();
    return item ? static_cast<Page>(item->data(kPageRole).toInt()) : StrategyPageIndex;
}

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
    app::ExperimentDocument& document = m_session.document();
    if (!document.isDirty())
        return true;
    switch (m_dialogs->askToSave(this, document.displayName())) {
    case Dialogs::SaveChoice::Save: return save();
    case Dialogs::SaveChoice::Discard: return true;
    case Dialogs::SaveChoice::Cancel: return false;
    }
    return false;
}

bool MainWindow::openFile(const QString& path)
{
    QString error;
    if (!m_session.document().load(path, &error)) {
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
    if (!m_session.document().newFromExample(path, &error))
        m_banner->showError(error);
}

bool MainWindow::save()
{
    app::ExperimentDocument& document = m_session.document();
    if (document.filePath().isEmpty())
        return saveAs();
    QString error;
    if (!document.save(&error)) {
        m_banner->showError(error);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(document.filePath()), 4000);
    return true;
}

bool MainWindow::saveAs()
{
    app::ExperimentDocument& document = m_session.document();
    QString path = m_dialogs->saveFile(this, tr("Save experiment"), document.displayName() + ".strata.json", kFileFilter);
    if (path.isEmpty())
        return false;
    if (QFileInfo(path).suffix().isEmpty())
        path += ".strata.json";
    QString error;
    if (!document.saveAs(path, &error)) {
        m_banner->showError(error);
        return false;
    }
    app::RecentFiles::add(path);
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

std::optional<app::ResumeChoice> MainWindow::askResumeChoice(const QString& runDir, const app::ResumeRefusal& refusal)
{
    switch (m_dialogs->askResumeChoice(this, runDir, refusal.differences, refusal.weightsOnly)) {
    case Dialogs::ResumeAnswer::Fresh: return app::ResumeChoice::Fresh;
    case Dialogs::ResumeAnswer::WeightsOnly: return app::ResumeChoice::WeightsOnly;
    case Dialogs::ResumeAnswer::Cancel: return std::nullopt;
    }
    return std::nullopt;
}

RunWindow* MainWindow::openRun(qint64 runId)
{
    QString error;
    const std::optional<app::RunRecord> run = history().run(runId, &error);
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

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!m_closeAfterStop && !maybeSave()) {
        event->ignore();
        return;
    }
    if (run().isChecking())
        stop(); // nothing started yet
    if (run().isRunning() && !m_closeAfterStop) {
        switch (m_dialogs->askAboutRunningRun(this, QFileInfo(run().runDir()).fileName())) {
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
    if (run().isRunning()) {
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
