#pragma once
// Compare page: runs side by side: their loss curves overlaid (against the step and against
// wall time), throughput and the step-time split, the comparison table (final loss and
// accuracy, samples/s, time to a target loss the user sets, scaling efficiency against a
// baseline run, communication share), and what differs between their experiments as a table
// (a row per field, by its label, a column per run; an unfair difference marked). Each run has
// one colour everywhere (its history id's, app/compare/run_colours.h), and a chip that hides or
// shows it on every plot. Exports the table (CSV, Markdown) and the whole comparison as one PDF
// report; each plot as an image. On top, the "Compare strategies" panel that starts a sweep.
// With no runs, the page says how to get some instead of empty plots.

#include "app/compare/comparison_session.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSplitter;
class QStackedWidget;
class QTableWidget;

namespace strata::ui {

class Dialogs;
class RunChips;
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
    // A row per differing field, a column per run; the sentence above it sums them up.
    QTableWidget* differences() const { return m_differences; }
    QLabel* differencesSummary() const { return m_differencesSummary; }
    RunChips* runChips() const { return m_chips; }
    // Each run's colour (theme::series of its slot, on this palette).
    QColor runColour(int run) const;

    // The whole comparison on PDF pages: the table, the differences, every plot.
    bool exportReport(const QString& path, QString* error);

Q_SIGNALS:
    void message(const QString& text, bool error);

protected:
    void changeEvent(QEvent* event) override; // the runs' colours follow the palette

private:
    // The constructor's steps.
    void buildHeader();
    void buildPlots();
    void buildTables();
    QWidget* buildComparison();
    void showRuns();
    void showDifferences();
    void showTable();
    // Each plot's lines in their runs' colours, the hidden runs' left out.
    void showRunLines();
    void exportTable();

    app::ComparisonSession* m_session;
    Dialogs* m_dialogs;
    SweepPanel* m_sweep;
    QWidget* m_header;
    QLabel* m_title;
    QDoubleSpinBox* m_target;
    QComboBox* m_baseline;
    std::vector<SeriesPlot*> m_plots;
    SplitBars* m_split;
    QTableWidget* m_table;
    QTableWidget* m_differences;
    QLabel* m_differencesSummary;
    RunChips* m_chips;
    QStackedWidget* m_stack; // the hint when there is nothing to compare, else the comparison
};

} // namespace strata::ui
