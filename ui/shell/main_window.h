#pragma once
// The window: a page list (Strategy, Cluster, Model, Data, Training, Dashboard, History,
// Compare) beside the page shown, the validation panel with Launch under the setup pages,
// and an error banner on top. It only wires the panels to the document, the run controller,
// the run history, the comparison and the strategy sweep. SSH questions (host keys,
// passwords) come as its dialogs. A run goes on without the window when the user leaves it
// running on close; the next window offers to reattach it. Keys: Ctrl+1..8 show the pages,
// Ctrl+R launches, Ctrl+. stops. Its size and layout are remembered (QSettings).

#include "app/compare/comparison_session.h"
#include "app/compare/strategy_sweep.h"
#include "app/experiment/experiment_document.h"
#include "app/history/run_history.h"
#include "app/launch/engine_info.h"
#include "app/launch/run_controller.h"
#include "app/ssh/keyring.h"
#include "ui/shell/dialogs.h"

#include <QMainWindow>

#include <memory>

class QAction;
class QListWidget;
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
class StrategyPage;
class TrainingPage;
class ValidationPanel;

class MainWindow : public QMainWindow {
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
        ComparePageIndex
    };

    // `enginePath` empty: app::defaultEnginePath(). `dialogs` null: the real file dialogs.
    explicit MainWindow(const QString& enginePath = {}, std::unique_ptr<Dialogs> dialogs = nullptr,
                        QWidget* parent = nullptr);
    ~MainWindow() override;

    app::ExperimentDocument& document() { return m_document; }
    app::RunController& run() { return m_run; }
    // Where the window's runs are recorded (open unless the banner said why not).
    app::RunHistory& history() { return m_history; }
    const app::EngineInfo& engine() const { return m_engine; }
    MessageBanner* banner() const { return m_banner; }
    ValidationPanel* validationPanel() const { return m_validation; }
    ClusterPage* clusterPage() const { return m_cluster; }
    DashboardPage* dashboard() const { return m_dashboard; }
    HistoryPage* historyPage() const { return m_historyPage; }
    ComparePage* comparePage() const { return m_compare; }
    app::ComparisonSession& comparison() { return m_comparison; }
    app::StrategySweep& sweep() { return m_sweep; }
    void showPage(Page page);
    Page currentPage() const;

    // File operations as the menu runs them (asking to save unsaved changes first).
    bool openFile(const QString& path);
    void newFromExample(const QString& path);
    bool save();
    bool saveAs();
    // Starts the document's run (with remote nodes once they passed their check).
    bool launch();
    // Stops the run, or calls off a launch still checking its nodes.
    void stop();
    // Follows the recorded run again (it went on without Strata) on the dashboard.
    bool reattach(qint64 runId);
    // Trains the document on in the recorded run's directory, from its newest checkpoint. When
    // the engine refuses (the checkpoint is of a different experiment), the window asks whether
    // to start fresh or to load its weights only, and launches again as answered.
    bool resume(qint64 runId);
    // Opens a recorded run's dashboard, rebuilt from its directory, in a window of its own.
    RunWindow* openRun(qint64 runId);
    // Shows the recorded runs side by side on the Compare page.
    bool compareRuns(const QList<qint64>& runIds);
    // Runs the experiment under each variant, then compares them.
    bool runSweep(const QList<app::SweepVariant>& variants);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createMenus();
    // The window's geometry, toolbars and the dashboard's layout, from and to QSettings: the
    // last window closed is how the next one opens.
    void restoreLayout();
    void saveLayout();
    void updateTitle();
    void updateRecentMenu();
    void updateRunState();
    bool maybeSave();
    void showProblemField(const QString& path);
    // Starts the document's run in `runDir` (empty: a new one).
    bool startRun(const QString& runDir, app::ResumeChoice choice);
    // The engine refused to resume the run directory's checkpoint: asks what to do instead.
    void answerResumeRefusal(const app::ResumeRefusal& refusal);
    // Shows a run's news in the banner, with why the run is not in the history if it is not.
    void reportRun(const QString& text, bool error);

    app::ExperimentDocument m_document;
    app::ssh::Keyring m_keyring; // outlives m_run's connections, which may remember secrets in it
    app::RunHistory m_history; // outlives m_run, which records into it
    app::RunController m_run;
    app::StrategySweep m_sweep{&m_run};
    app::ComparisonSession m_comparison;
    QString m_historyProblem; // the current run could not be recorded: why
    app::EngineInfo m_engine;
    std::unique_ptr<Dialogs> m_dialogs;
    DialogPrompter* m_prompter; // a child: outlives m_run's connections

    MessageBanner* m_banner;
    QListWidget* m_nav;
    QStackedWidget* m_pages;
    StrategyPage* m_strategy;
    ClusterPage* m_cluster;
    ModelPage* m_model;
    DataPage* m_data;
    TrainingPage* m_training;
    DashboardPage* m_dashboard;
    HistoryPage* m_historyPage;
    ComparePage* m_compare;
    ValidationPanel* m_validation;
    QMenu* m_recentMenu = nullptr;
    QAction* m_undo = nullptr;
    QAction* m_redo = nullptr;
    QAction* m_launch = nullptr;
    QAction* m_stop = nullptr;
    bool m_closeAfterStop = false;
    bool m_launching = false;     // launch() was called and its run has not started yet
    bool m_sweepLaunched = false; // the last runs were a sweep's (it reports them)
};

} // namespace strata::ui
