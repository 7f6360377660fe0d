#pragma once
// The heatmap of each training worker's own time per step (app/metrics/worker_heatmap.h): a row
// per worker, labelled by task (as many labels as fit: the mouse names every row), a column per
// pixel's worth of steps, each cell coloured by the worker's time relative to the median
// worker's at those steps, on a sequential scale with its colour bar ("x the median"), so that a
// straggler's row stands out whatever the run's step time does over time (a slow first step,
// a slower phase). The steps the page's step plots show (setSteps), or the whole run; the mouse
// over a cell names its worker, its steps and its time in ms. Its controls are a plot's
// (PlotControls: the right-click menu and the hover toolbar): fit (the step plots' view back to
// the whole run), maximise (64 rows need the height) and export as PNG, SVG or PDF. Colours
// follow the palette.

#include "app/metrics/worker_heatmap.h"

#include <QWidget>

#include <limits>

class QCPColorMap;
class QEnterEvent;
class QCPColorScale;
class QCPTextElement;
class QCPItemText;
class QCustomPlot;
class QMenu;

namespace strata::ui {

class Dialogs;
class PlotControls;

class WorkerHeatmapView : public QWidget {
    Q_OBJECT

public:
    // `store` must outlive the view.
    explicit WorkerHeatmapView(const app::MetricsStore& store, QWidget* parent = nullptr);

    // The steps shown from the next refresh on: [lower, upper] (the step plots' x range), or the
    // whole run (NaN: their x counts time).
    void setSteps(double lower, double upper);
    // Re-reads the store for the steps and the width shown.
    void refresh();
    // The workers heard from (the page shows the heatmap for many).
    int workerCount() const { return m_heatmap.workerCount(); }
    // What was drawn last, and how long refresh() took.
    const app::HeatmapGrid& grid() const { return m_grid; }
    double lastRefreshMs() const { return m_lastRefreshMs; }
    QCustomPlot* plot() const { return m_plot; }
    QCPColorMap* colorMap() const { return m_map; }
    // What the mouse at `at` (the plot's coordinates) is told; empty off the cells.
    QString textAt(const QPoint& at) const;
    // Where an export asks for a file (null: export is not offered).
    void setDialogs(Dialogs* dialogs);
    bool isMaximized() const;
    void setMaximized(bool maximized);
    // The right-click menu (the caller owns it), for tests.
    QMenu* buildMenu();

    // The colour scale's range, relative to the median worker.
    static constexpr double kLeast = 0.5, kGreatest = 4;

Q_SIGNALS:
    // Fit to data, or a double click: the step plots' view back to the whole run.
    void fitAsked();
    void maximizeToggled(bool maximized);
    // An export failed (error) or was written.
    void message(const QString& text, bool error);

protected:
    void changeEvent(QEvent* event) override;
    void enterEvent(QEnterEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void applyPalette();
    void setUpControls();
    void exportImageAsked();
    // Row labels every so many rows, as many as fit the axis' height.
    void labelRows();

    app::WorkerHeatmap m_heatmap;
    double m_lower = std::numeric_limits<double>::quiet_NaN(), m_upper = m_lower;
    app::HeatmapGrid m_grid;
    QCustomPlot* m_plot;
    QCPTextElement* m_title;
    QCPColorMap* m_map;
    QCPColorScale* m_scale;
    QCPItemText* m_empty;
    PlotControls* m_controls = nullptr;
    Dialogs* m_dialogs = nullptr;
    double m_lastRefreshMs = 0;
    bool m_refreshQueued = false;
};

} // namespace strata::ui
