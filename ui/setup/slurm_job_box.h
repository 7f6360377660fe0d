#pragma once
// The Cluster page under "A Slurm cluster": the job's allocation (login node, partition, nodes,
// tasks per node, CPUs and GPUs per task, time limit, account, QoS, extra #SBATCH lines), its
// end (requeue when preempted, the warning's lead), its tasks by type, and the job script as it
// is submitted, updated live (app::jobScriptPreview). Edits go through app::ClusterEditing, one
// undo step each (a number or a text when the user is done with it); every editor shows the
// document's value as written and is marked while validation has a problem at its field.
// GUI thread only.

#include "app/experiment/cluster_editing.h"

#include <QMap>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTimer;

namespace strata::ui {

class FieldSpinBox;

class SlurmJobBox : public QWidget {
    Q_OBJECT

public:
    SlurmJobBox(app::ExperimentDocument* document, QWidget* parent = nullptr);
    ~SlurmJobBox() override;

    // The strata-engine the script starts on the nodes (a launch passes this machine's).
    void setEngine(const QString& engine);

    QComboBox* loginCombo() const { return m_login; }
    QLineEdit* partitionEdit() const { return m_partition; }
    FieldSpinBox* nodesBox() const { return m_nodes; }
    FieldSpinBox* tasksPerNodeBox() const { return m_tasksPerNode; }
    QPlainTextEdit* extraSbatchEdit() const { return m_extra; }
    // chief, worker, ps, evaluator.
    FieldSpinBox* jobCountBox(const QString& type) const { return m_jobs.value(type); }
    // The tasks the job runs ("worker:0, worker:1, ...").
    QLabel* taskNames() const { return m_taskNames; }
    QPlainTextEdit* scriptPreview() const { return m_script; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* makeAllocationBox();
    QWidget* makeTasksBox();
    QWidget* makeExtraBox();
    QWidget* makeScriptBox();
    FieldSpinBox* number(const char* field, int minimum, const QString& special, void (app::ClusterEditing::*set)(int));
    QLineEdit* text(const char* field, void (app::ClusterEditing::*set)(const QString&));
    void refresh();
    void refreshLogin(const app::SlurmJob& job);
    void commitExtraLines();

    app::ExperimentDocument* m_document;
    app::ClusterEditing m_cluster;
    QString m_engine;
    QComboBox* m_login = nullptr;
    QLineEdit* m_partition = nullptr;
    FieldSpinBox* m_nodes = nullptr;
    FieldSpinBox* m_tasksPerNode = nullptr;
    FieldSpinBox* m_cpus = nullptr;
    FieldSpinBox* m_gpus = nullptr;
    QLineEdit* m_timeLimit = nullptr;
    QLineEdit* m_account = nullptr;
    QLineEdit* m_qos = nullptr;
    QPlainTextEdit* m_extra = nullptr;
    QTimer* m_extraIdle = nullptr; // commits the extra lines when the typing pauses
    QCheckBox* m_requeue = nullptr;
    FieldSpinBox* m_signal = nullptr;
    QMap<QString, FieldSpinBox*> m_jobs;
    QLabel* m_taskNames = nullptr;
    QPlainTextEdit* m_script = nullptr;
};

} // namespace strata::ui
