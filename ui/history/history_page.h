#pragma once
// History page: every recorded run, newest first: filter by text (name, tag, host), strategy,
// status and start date; sort by any column; rename, tag and delete runs (deleting asks
// first, and deletes the run directories only when the user ticks it); open a run's
// dashboard rebuilt from its directory; compare the selected runs; reattach a run that went on
// without Strata (`running` or `interrupted`: the window follows it again); resume a run that
// ended (the window's experiment trains on in its directory from its checkpoint); export a finished
// run as Keras 3 files (app::KerasExport runs the engine; the page asks where). A failed run's
// row is in the error colour with its error in the tooltips; with no runs the page says how to
// make one instead of showing an empty table.

#include "app/history/history_model.h"
#include "app/launch/keras_export.h"

#include <QWidget>

class QComboBox;
class QDateEdit;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;
class QTableView;

namespace strata::ui {

class Dialogs;
class FailedRunRows;

class HistoryPage : public QWidget {
    Q_OBJECT

public:
    // `history` must outlive the page.
    HistoryPage(app::RunHistory* history, Dialogs* dialogs, QWidget* parent = nullptr);

    // Reads the runs again (a run was recorded or changed elsewhere).
    void refresh();
    QTableView* table() const { return m_table; }
    // Shown instead of the table while it has no rows: what to do (no runs yet, or none match).
    QLabel* emptyHint() const { return m_emptyHint; }
    app::HistoryModel* model() { return &m_model; }
    // The engine `Export to Keras` runs (the window's).
    void setEnginePath(const QString& path) { m_enginePath = path; }
    // The export under way or last finished (tests wait on it).
    app::KerasExport* kerasExport() { return &m_kerasExport; }
    // The runs selected in the table, in table order.
    QList<qint64> selectedRuns() const;
    void selectRuns(const QList<qint64>& ids);

Q_SIGNALS:
    void openRequested(qint64 runId);
    void compareRequested(const QList<qint64>& runIds);
    void reattachRequested(qint64 runId);
    void resumeRequested(qint64 runId);
    void message(const QString& text, bool error);

private:
    // The constructor's steps.
    void setUpFilters();
    void setUpTable();
    void connectActions();
    void applyFilter();
    void renameSelected();
    void tagSelected();
    void deleteSelected();
    void exportSelectedToKeras();
    void updateActions();
    void showTableOrHint();

    app::RunHistory* m_history;
    Dialogs* m_dialogs;
    app::HistoryModel m_model;
    FailedRunRows* m_rows; // m_model as the table shows it
    QLineEdit* m_text;
    QComboBox* m_strategy;
    QComboBox* m_status;
    QDateEdit* m_from;
    QTableView* m_table;
    QLabel* m_emptyHint;
    QStackedWidget* m_tableOrHint;
    QLabel* m_count;
    QPushButton* m_open;
    QPushButton* m_compare;
    QPushButton* m_reattach;
    QPushButton* m_resume;
    QPushButton* m_rename;
    QPushButton* m_tag;
    QPushButton* m_delete;
    QPushButton* m_exportKeras;
    QString m_enginePath;
    app::KerasExport m_kerasExport;
};

} // namespace strata::ui
