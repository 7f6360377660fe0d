#pragma once
// Cluster page: the machines (nodes) and the tasks assigned to them; this machine is a node
// by default. A strategy of one process has no tasks: the page says so instead; a strategy of
// several gets its small job on this machine in one click. Check nodes tries every node as a
// launch would (app::NodeChecker: connect, the engine there, its devices, the data, the
// ports) and lists each node's result as it arrives. Shows the TF_CONFIG each task would
// receive, live; imports and exports TF_CONFIG JSON. At its top, where the tasks run: these
// machines (the nodes and tasks above), or a Slurm cluster, submitted as one batch job
// (SlurmJobBox: the job's settings and its script instead of the nodes, tasks and TF_CONFIG).

#include "app/experiment/cluster_editing.h"
#include "app/launch/remote_access.h"

#include <QMap>
#include <QWidget>

#include <memory>

class QGroupBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;
class QTableWidget;

namespace strata::app {
class NodeChecker;
struct NodeReport;
} // namespace strata::app

namespace strata::ui {

class Dialogs;
class FieldSpinBox;
class SlurmJobBox;

class ClusterPage : public QWidget {
    Q_OBJECT

public:
    ClusterPage(app::ExperimentDocument* document, Dialogs* dialogs, QWidget* parent = nullptr);
    ~ClusterPage() override;

    // How Check nodes reaches remote nodes (the prompter must outlive the page) and this
    // machine's engine.
    void setNodeAccess(const app::RemoteAccess& access, const QString& localEngine);
    // Checks the nodes of the experiment as it would be launched; refused (`message`) while
    // the cluster has problems.
    void checkNodes();
    bool isChecking() const;

    QTableWidget* nodeTable() const { return m_nodes; }
    QPushButton* checkButton() const { return m_check; }
    // One row per node checked: node, result (OK or its problems), engine, devices, time.
    QTableWidget* checkResults() const { return m_checks; }
    QLabel* checkState() const { return m_checkState; }
    QTableWidget* assignmentTable() const { return m_assignments; }
    QListWidget* taskList() const { return m_tasks; }
    QPlainTextEdit* preview() const { return m_preview; }
    // What the strategy needs of the tasks and the cluster lacks (empty when nothing).
    QLabel* taskHint() const { return m_taskHint; }
    // Shown instead of the cluster under a strategy of one process.
    QLabel* notUsedNotice() const { return m_notUsed; }
    // Sets up the strategy's small job on this machine (ClusterEditing::setUpLocalJob).
    QPushButton* setUpLocalButton() const { return m_setUpLocal; }
    // Where the tasks run: these machines, or a Slurm cluster (ClusterEditing::setSlurmJob).
    QRadioButton* machinesChoice() const { return m_onMachines; }
    QRadioButton* slurmChoice() const { return m_onSlurm; }
    // Shown instead of the nodes, tasks and TF_CONFIG when the tasks run as a Slurm job.
    SlurmJobBox* slurmBox() const { return m_slurm; }

Q_SIGNALS:
    void message(const QString& text, bool error);

private:
    enum CheckColumn { CheckNode, CheckResult, CheckEngine, CheckDevices, CheckTime, CheckColumns };
    // The constructor's steps: the page's three boxes.
    QGroupBox* makeNodesBox(app::ExperimentDocument* document);
    QGroupBox* makeTasksBox();
    QGroupBox* makePreviewBox();
    QWidget* makeWhereRow();
    void refresh();
    // refresh()'s steps.
    QStringList refreshNodes();
    void refreshAssignments(const QStringList& nodeNames);
    void refreshTaskList();
    void refreshHints();
    void refreshPreview();
    void nodeEdited(int row);
    void assignmentEdited(int row);
    QString selectedTask() const;
    void importTfConfig();
    void exportTfConfig();
    void showReport(const app::NodeReport& report);
    void checkFinished(const QList<app::NodeReport>& reports);

    app::ExperimentDocument* m_document;
    app::ClusterEditing m_cluster;
    Dialogs* m_dialogs;
    app::RemoteAccess m_access;
    QString m_localEngine;
    std::unique_ptr<app::NodeChecker> m_checker;
    QTableWidget* m_nodes;
    FieldSpinBox* m_stopUnattended;
    QPushButton* m_check;
    QLabel* m_checkState;
    QTableWidget* m_checks;
    QTableWidget* m_assignments;
    QListWidget* m_tasks;
    QPlainTextEdit* m_preview;
    QLabel* m_taskHint;
    QLabel* m_notUsed;
    QWidget* m_notUsedStretch = nullptr;
    QPushButton* m_setUpLocal;
    QRadioButton* m_onMachines = nullptr;
    QRadioButton* m_onSlurm = nullptr;
    SlurmJobBox* m_slurm = nullptr;
    QList<QWidget*> m_boxes; // nodes, tasks, TF_CONFIG: hidden while m_notUsed shows
    QMap<QString, int> m_nodeGpus; // GPUs by node name, as the last Check nodes found them
    bool m_refreshing = false;
};

} // namespace strata::ui
