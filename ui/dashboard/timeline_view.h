#pragma once
// The Timeline panel: the last steps of every task on the job's clock (app/metrics/
// recent_timeline.h), a row per task and lane (the tasks in the task table's order, grouped by
// job, every other task shaded; a line between jobs), each span a rectangle in its phase's colour
// (the legend under the title; timeline_spans.h), the step numbers along the top, each step's
// start marked over its task's rows. The wheel zooms the time around the cursor, a drag pans
// (time, and the rows when they do not all fit: the scroll bar beside them), a double click
// (or Fit) goes back to following the latest steps, as the other plots follow their data until
// the user moves them; the mouse over a span names its task, lane, phase and step, and its
// start and duration in ms. Rows are as tall as the height allows, and never under
// kMinRowPx: 64 tasks' rows scroll at 1280x720, labelled every task or every few as their
// height allows. Its controls are a plot's (PlotControls: the right-click menu and the hover
// toolbar): fit, maximise (the dashboard maximises it when its tab is chosen), export as PNG,
// SVG or PDF, and how many steps it follows.

#include "app/trace/timeline_window.h"

#include <QWidget>

class QCPItemText;
class QCPTextElement;
class QCustomPlot;
class QEnterEvent;
class QMenu;
class QScrollBar;

namespace strata::app {
class MetricsStore;
}

namespace strata::ui {

class Dialogs;
class PlotControls;
class TimelineLegend;
class TimelineSpans;

class TimelineView : public QWidget {
    Q_OBJECT

public:
    static constexpr int kDefaultSteps = 4;
    static constexpr int kMinRowPx = 8;

    // `store` must outlive the view.
    explicit TimelineView(const app::MetricsStore& store, QWidget* parent = nullptr);

    // Re-reads the store: the latest steps while following, else the range shown.
    void refresh();
    // Back to following the latest steps.
    void resetView();
    bool followsLatest() const { return m_follow; }
    void setStepsFollowed(int steps);
    int stepsFollowed() const { return m_steps; }
    // What the panel says while no task has a step timeline.
    void setEmptyText(const QString& text);
    QString emptyText() const;

    // What was drawn last; the x range shown (ms from originUs()); the rows shown.
    const app::Timeline& timeline() const { return m_timeline; }
    int64_t originUs() const { return m_originUs; }
    QPair<double, double> xRange() const;
    double firstRowShown() const;
    double rowsShown() const;
    // Where a row's middle is, in the plot's coordinates (tests, the tour); -1 when not shown.
    int rowY(int row) const;
    int msX(double ms) const;
    // What the mouse at `at` (the plot's coordinates) is told; empty off the spans.
    QString textAt(const QPoint& at) const;
    QStringList legendPhases() const;
    QCustomPlot* plot() const { return m_plot; }
    QScrollBar* rowScroll() const { return m_scroll; }
    double lastRefreshMs() const { return m_lastRefreshMs; }
    // Drawn for its present size (no refresh queued since it was resized).
    bool upToDate() const;

    // Where an export asks for a file (null: export is not offered).
    void setDialogs(Dialogs* dialogs);
    bool isMaximized() const;
    void setMaximized(bool maximized);
    // The right-click menu (the caller owns it).
    QMenu* buildMenu();

Q_SIGNALS:
    void maximizeToggled(bool maximized);
    // An export failed (error) or was written.
    void message(const QString& text, bool error);

protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void enterEvent(QEnterEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void setUpPlot();
    void setUpControls();
    void applyPalette();
    void exportImageAsked();
    void queueRefresh();
    // The y range for the rows' height and the row scrolled to; the scroll bar with it.
    void fitRows();
    void setTopRow(double top);
    // Every row's label, or every task's (every few) when rows are too low for each.
    void labelRows();
    // The reference task's step numbers along the top, as many as fit.
    void labelSteps();
    double rowPx() const;
    double rowsFitting() const;

    const app::MetricsStore& m_store;
    app::Timeline m_timeline;
    int64_t m_originUs = 0;
    bool m_follow = true;
    bool m_settingRange = false;
    bool m_refreshQueued = false;
    int m_steps = kDefaultSteps;
    double m_topRow = 0;
    double m_lastRefreshMs = 0;
    QString m_emptyText;
    QSize m_refreshedSize;
    QCustomPlot* m_plot;
    QScrollBar* m_scroll;
    QCPTextElement* m_title;
    TimelineLegend* m_legend;
    TimelineSpans* m_spans;
    QCPItemText* m_empty;
    PlotControls* m_controls = nullptr;
    Dialogs* m_dialogs = nullptr;
};

} // namespace strata::ui
