#pragma once
// The window: a page list grouped Setup (Strategy, Cluster, Model, Data, Training), Run
// (Dashboard) and Analyse (History, Compare, Plan) beside the page shown, the validation panel with
// Launch under the setup pages, and an error banner on top. It builds the widgets over its
// WindowSession (app/session), which owns the document, the run, the history, the sweep and
// the comparison and decides; the window wires the two and asks the user what the session
// needs answered (SSH host keys and passwords, a refused resume) through its dialogs. A run
// goes on without the window when the user leaves it running on close; the next window offers
// to reattach it. Keys: Ctrl+1..9 show the pages, Ctrl+R launches, Ctrl+. stops; Help lists
// them all. Its size and layout are remembered (QSettings).

#include "app/session/window_session.h"
#include "ui/shell/dialogs.h"

#include <QMainWindow>

#include <memory>

class QAction;
class QListWidget;
class QListWidgetItem;
class QMenu;
class QStackedWidget;

namespace strata::ui {

class ClusterPage;
class ComparePage;
class DashboardPage;
class DialogPrompter;
class HistoryPage;
class RunWindow;
class DataPage;
class MessageBanner;
class ModelPage;
class PlanPage;
class StrategyPage;
class TrainingPage;
class ValidationPanel;

class MainWindow : public QMainWindow, private app::ResumeAsker {
    Q_OBJECT

public:
    enum Page {
        StrategyPageIndex,
        ClusterPageIndex,
        ModelPageIndex,
        DataPageIndex,
        TrainingPageIndex,
        DashboardPageIndex,
        HistoryPageIndex,
        ComparePageIndex,
        PlanPageIndex,
        PageCount
    };

    // `enginePath` empty: app::defaultEnginePath(). `dialogs` null: the real file dialogs.
    explicit MainWindow(const QString& enginePath = {}, std::unique_ptr<Dialogs> dialogs = nullptr,
                        QWidget* parent = nullptr);
    ~MainWindow() override;

    app::WindowSession& session() { return m_session; }
    app::ExperimentDocument& document() { return m_session.document(); }
    app::RunController& run() { return m_session.run(); }
    // Where the window's runs are recorded (open unless the banner said why not).
    app::RunHistory& history() { return m_session.history(); }
    const app::EngineInfo& engine() const { return m_session.engine(); }
    app::ComparisonSession& comparison() { return m_session.comparison(); }
    app::StrategySweep& sweep() { return m_session.sweep(); }
    MessageBanner* banner() const { return m_banner; }
    ValidationPanel* validationPanel() const { return m_validation; }
    ClusterPage* clusterPage() const { return m_cluster; }
    DashboardPage* dashboard() const { return m_dashboard; }
    HistoryPage* historyPage() const { return m_historyPage; }
    ComparePage* comparePage() const { return m_compare; }
    PlanPage* planPage() const { return m_plan; }
    void showPage(Page page);
    Page currentPage() const;

    // File operations as the menu runs them (asking to save unsaved changes first).
    bool openFile(const QString& path);
    void newFromExample(const QString& path);
    bool save();
    bool saveAs();
    // The session's decisions, as the window's controls ask for them (WindowSession says what
    // each does).
    bool launch() { return m_session.launch(); }
    void stop() { m_session.stop(); }
    bool reattach(qint64 runId) { return m_session.reattach(runId); }
    bool resume(qint64 runId) { return m_session.resume(runId); }
    bool compareRuns(const QList<qint64>& runIds) { return m_session.compareRuns(runIds); }
    bool runSweep(const QList<app::SweepVariant>& variants) { return m_session.runSweep(variants); }
    // Opens a recorded run's dashboard, rebuilt from its directory, in a window of its own.
    RunWindow* openRun(qint64 runId);

protected:
    void closeEvent(QCloseEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    // The constructor's steps: the pages, the window's layout, the pages' and the document's
    // signals wired to the window and the session.
    void createPages();
    void layOut();
    void connectPages();
    void connectDocument();
    void buildPageList();
    void createMenus();
    void createFileMenu();
    void createViewMenu();
    void createRunMenu();
    void createHelpMenu();
    // The stylesheet and icons for the palette in force (again on every palette change).
    void applyLooks();
    // The window's geometry, toolbars and the dashboard's layout, from and to QSettings: the
    // last window closed is how the next one opens.
    void restoreLayout();
    void saveLayout();
    void updateTitle();
    void updateRecentMenu();
    void updateRunState();
    bool maybeSave();
    void showProblemField(const QString& path);
    void openDocumentation();
    std::optional<app::ResumeChoice> askResumeChoice(const QString& runDir, const app::ResumeRefusal& refusal) override;

    app::WindowSession m_session;
    std::unique_ptr<Dialogs> m_dialogs;
    DialogPrompter* m_prompter; // a child: outlives the session's connections

    MessageBanner* m_banner;
    QListWidget* m_nav;
    QList<QListWidgetItem*> m_pageItems; // by Page (the list also holds the group headers)
    QStackedWidget* m_pages;
    StrategyPage* m_strategy;
    ClusterPage* m_cluster;
    ModelPage* m_model;
    DataPage* m_data;
    TrainingPage* m_training;
    DashboardPage* m_dashboard;
    HistoryPage* m_historyPage;
    ComparePage* m_compare;
    PlanPage* m_plan;
    ValidationPanel* m_validation;
    QMenu* m_recentMenu = nullptr;
    QAction* m_undo = nullptr;
    QAction* m_redo = nullptr;
    QAction* m_launch = nullptr;
    QAction* m_stop = nullptr;
    QList<std::pair<QAction*, QString>> m_iconActions; // actions with one of icons::icon's, by name
    bool m_closeAfterStop = false;
};

} // namespace strata::ui
