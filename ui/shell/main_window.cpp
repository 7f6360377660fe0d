// MainWindow: building the window (pages, layout, wiring), its looks and layout, closing.
// Its menus: main_window_menus.cpp; file operations: main_window_files.cpp.
#include "ui/shell/main_window.h"
#include "ui/shell/main_window_parts.h"

#include "ui/setup/cluster_page.h"
#include "ui/compare/compare_page.h"
#include "ui/dashboard/dashboard_page.h"
#include "ui/setup/data_page.h"
#include "ui/shell/dialog_prompter.h"
#include "ui/shell/dialogs.h"
#include "ui/shell/elided_text_tips.h"
#include "ui/shell/icons.h"
#include "ui/shell/theme.h"
#include "ui/history/history_page.h"
#include "ui/shell/message_banner.h"
#include "ui/setup/model_page.h"
#include "ui/plan/plan_page.h"
#include "ui/dashboard/run_window.h"
#include "ui/setup/strategy_page.h"
#include "ui/compare/sweep_panel.h"
#include "ui/setup/training_page.h"
#include "ui/setup/validation_panel.h"

#include <QAction>
#include <QCloseEvent>
#include <QFileInfo>
#include <QListWidget>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace strata::ui {

using namespace main_window_parts;

namespace {
// Where the window's size and layout are remembered (QSettings: the user's configuration).
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
const QString kDashboardKey = QStringLiteral("window/dashboard");
// The page an entry of the page list shows (none on the group headers).
constexpr int kPageRole = Qt::UserRole;
} // namespace

MainWindow::MainWindow(const QString& enginePath, std::unique_ptr<Dialogs> dialogs, QWidget* parent)
    : QMainWindow(parent), m_session(enginePath), m_dialogs(dialogs ? std::move(dialogs) : std::make_unique<Dialogs>()),
      m_prompter(new DialogPrompter(m_dialogs.get(), this)), m_banner(new MessageBanner(this)),
      m_nav(new QListWidget(this)), m_pages(new QStackedWidget(this))
{
    setObjectName("mainWindow");
    setWindowIcon(icons::appIcon());
    // SSH questions (host keys, passwords) come as the window's dialogs.
    m_session.setPrompter(m_prompter);
    m_session.setResumeAsker(this);

    createPages();
    layOut();
    createMenus();
    applyLooks();
    showElidedTextAsTips(this);
    connectPages();
    connectDocument();
    m_session.openHistory(app::RunHistory::defaultPath());
    showPage(StrategyPageIndex);
    m_undo->setEnabled(false);
    m_redo->setEnabled(false);
    updateTitle();
    updateRunState();
    resize(QSize(1200, 820).boundedTo(screen()->availableSize()));
    restoreLayout();
}

void MainWindow::createPages()
{
    app::ExperimentDocument& document = m_session.document();
    const app::EngineInfo& engine = m_session.engine();
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
    m_plan = new PlanPage(&m_session.planner(), this);
    m_validation = new ValidationPanel(&document, this);
    buildPageList();
}

void MainWindow::layOut()
{
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
}

void MainWindow::connectPages()
{
    auto report = [this](const QString& text, bool error) {
        error ? m_banner->showError(text) : m_banner->showInfo(text);
    };
    connect(&m_session, &app::WindowSession::message, this, report);
    connect(m_model, &ModelPage::message, this, report);
    connect(m_cluster, &ClusterPage::message, this, report);
    connect(m_dashboard, &DashboardPage::message, this, report);
    connect(m_historyPage, &HistoryPage::message, this, report);
    connect(m_compare, &ComparePage::message, this, report);
    connect(m_plan, &PlanPage::message, this, report);
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
}

void MainWindow::connectDocument()
{
    app::ExperimentDocument& document = m_session.document();
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
                             {HistoryPageIndex, tr("History"), m_historyPage}, {ComparePageIndex, tr("Compare"), m_compare},
                             {PlanPageIndex, tr("Plan"), m_plan}};
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
