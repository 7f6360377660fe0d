#pragma once
// Compare page: runs side by side: their loss curves overlaid (against the step and against
// wall time), throughput and the step-time split, the comparison table (final loss and
// accuracy, samples/s, time to a target loss the user sets, scaling efficiency against a
// baseline run, communication share), and what differs between their experiments, an
// unfair difference marked. Exports the table (CSV, Markdown) and the whole comparison as
// one PDF report; each plot as an image. On top, the "Compare strategies" panel that starts a sweep.

#include "app/compare/comparison_session.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QTableWidget;

namespace strata::ui {

class Dialogs;
class SeriesPlot;
class SplitBars;
class SweepPanel;

class ComparePage : public QWidget {
    Q_OBJECT

public:
    // `session` must outlive the page.
    ComparePage(app::ComparisonSession* session, Dialogs* dialogs, QWidget* parent = nullptr);
    ~ComparePage() override;

    SweepPanel* sweepPanel() const { return m_sweep; }
    SeriesPlot* plot(app::ComparisonSession::PlotKind kind) const { return m_plots[size_t(kind)]; }
    SplitBars* stepSplit() const { return m_split; }
    QTableWidget* table() const { return m_table; }
    QListWidget* differences() const { return m_differences; }

    // The whole comparison on PDF pages: the table, the differences, every plot.
    bool exportReport(const QString& path, QString* error);

Q_SIGNALS:
    void message(const QString& text, bool error);

private:
    void showRuns();
    void showTable();
    void exportTable();

    app::ComparisonSession* m_session;
    Dialogs* m_dialogs;
    SweepPanel* m_sweep;
    QLabel* m_title;
    QDoubleSpinBox* m_target;
    QComboBox* m_baseline;
    std::vector<SeriesPlot*> m_plots;
    SplitBars* m_split;
    QTableWidget* m_table;
    QListWidget* m_differences;
};

} // namespace strata::ui
