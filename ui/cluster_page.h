#pragma once
// Cluster page: the machines (nodes) and the tasks assigned to them; this machine is a node
// by default. Shows the TF_CONFIG each task would receive, live; imports and exports
// TF_CONFIG JSON.

#include "app/experiment/cluster_editing.h"

#include <QWidget>

class QListWidget;
class QPlainTextEdit;
class QTableWidget;

namespace strata::ui {

class Dialogs;

class ClusterPage : public QWidget {
    Q_OBJECT

public:
    ClusterPage(app::ExperimentDocument* document, Dialogs* dialogs, QWidget* parent = nullptr);

    QTableWidget* nodeTable() const { return m_nodes; }
    QTableWidget* assignmentTable() const { return m_assignments; }
    QListWidget* taskList() const { return m_tasks; }
    QPlainTextEdit* preview() const { return m_preview; }

Q_SIGNALS:
    void message(const QString& text, bool error);

private:
    void refresh();
    void refreshPreview();
    void nodeEdited(int row);
    void assignmentEdited(int row);
    void importTfConfig();
    void exportTfConfig();

    app::ExperimentDocument* m_document;
    app::ClusterEditing m_cluster;
    Dialogs* m_dialogs;
    QTableWidget* m_nodes;
    QTableWidget* m_assignments;
    QListWidget* m_tasks;
    QPlainTextEdit* m_preview;
    bool m_refreshing = false;
};

} // namespace strata::ui
