#pragma once
// "Compare strategies": which strategies to run the current experiment under (with their
// replica counts, or a multi-process job's workers), Run and Stop, and the sweep's progress.
// The window runs the sweep.

#include "app/compare/strategy_sweep.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace strata::ui {

class SweepPanel : public QWidget {
    Q_OBJECT

public:
    explicit SweepPanel(QWidget* parent = nullptr);

    // The logical CPU devices of this host (the default replica count).
    void setHostCpus(int cpus);
    // Ticks `type` with `replicas` (tests, and the defaults).
    void choose(const QString& type, bool chosen, int replicas = 0);
    QList<app::SweepVariant> variants() const;

    // What the window reports back.
    void showProgress(int done, int count, const QString& running);
    void showIdle(const QString& message);
    QPushButton* runButton() const { return m_run; }

Q_SIGNALS:
    void runRequested(const QList<app::SweepVariant>& variants);
    void stopRequested();

private:
    struct Row {
        QString type;
        QCheckBox* chosen;
        QSpinBox* replicas; // null: one replica
        bool workers;       // `replicas` counts the worker processes of a job
    };
    std::vector<Row> m_rows;
    int m_hostCpus = 1;
    QPushButton* m_run;
    QPushButton* m_stop;
    QProgressBar* m_progress;
    QLabel* m_status;
};

} // namespace strata::ui
