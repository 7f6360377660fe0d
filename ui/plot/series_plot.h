#pragma once
// SeriesPlot: a QCustomPlot view of lines that may hold millions of points. Every replot
// asks its PlotSource for the visible x-range reduced to one min/max per pixel column, so
// drawing cost depends on the widget's width, not on the data, and zooming in shows finer
// detail down to single points. Pan (drag) and zoom (wheel) with the mouse; a crosshair with
// the values under the cursor (gone when the mouse leaves); legend entries that hide/show
// their line; a line of few points drawn with markers (one point is never invisible); a
// smoothed line drawn over its raw values, faint. Its controls (PlotControls: a right-click
// menu and a toolbar shown while the mouse is over the plot): fit, log y, maximise, export
// as PNG, SVG or PDF (with legend and axes) and the data as CSV. Tick labels are as many as
// fit without touching; colours follow the palette (light or dark).

#include "app/metrics/store_lines.h"
#include "ui/plot/plot_ticks.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <functional>
#include <memory>

class QCustomPlot;
class QMenu;
class QToolButton;

namespace strata::ui {

class Dialogs;

class SeriesPlot : public QWidget {
    Q_OBJECT

public:
    explicit SeriesPlot(QWidget* parent = nullptr);
    ~SeriesPlot() override;

    void setTitle(const QString& title);
    QString title() const;
    void setAxisLabels(const QString& x, const QString& y);
    // The plot does not own the source; it must outlive the plot or be replaced first.
    void setSource(const app::PlotSource* source);
    void setLineColor(int line, const QColor& color);
    void setLineVisible(int line, bool visible);
    bool isLineVisible(int line) const;
    void setYLogarithmic(bool logarithmic);
    bool isYLogarithmic() const;
    // How y tick labels read: plain numbers with k/M suffixes, or bytes (KB, MB, GB).
    using Units = TickUnits;
    void setYUnits(Units units);
    // x counts steps: ticks at whole steps only.
    void setXIntegral(bool integral);
    // What x counts (as the source's StoreLines::setXAxis says): ticks, the axis' label and the
    // values under the cursor read as steps, seconds since the start or times of day. Back to
    // following the data.
    void setXAxis(app::XAxis axis);
    app::XAxis xAxis() const;
    // A y range kept whatever the data, also while there is none (0..1 for a fraction); by
    // default y follows the data.
    void setFixedYRange(double lower, double upper);
    // What the empty plot says (default "No data yet").
    void setEmptyText(const QString& text);

    // Re-reads the source for the current view (call when the data changed). While the
    // user has not panned or zoomed, the view follows the data.
    void refresh();
    // Back to the whole data.
    void resetView();
    bool followsData() const;
    // The x range shown; setting it (a linked plot's zoom) stops following the data.
    QPair<double, double> xRange() const;
    void setXRange(double lower, double upper);
    // A crosshair at `x` without the values' tooltip (a linked plot's cursor); hidden by NaN.
    void showCrosshairAt(double x);
    bool crosshairVisible() const;

    // Where exports ask for a file (null: export is not offered).
    void setDialogs(Dialogs* dialogs);
    // Items of this plot's own for its menu (a smoothing submenu), after the common ones.
    void setMenuExtension(std::function<void(QMenu&)> extend);
    // Offers "Maximise" (the plot's owner shows it alone while `maximised` is true).
    void setMaximizable(bool maximizable);
    bool isMaximized() const;
    void setMaximized(bool maximized);
    // The controls, for tests and for owners that add to them.
    QMenu* buildMenu();
    QWidget* hoverToolbar() const;

    // Exports (return false with `error` set on failure).
    bool exportImage(const QString& path, QString* error = nullptr) const; // .png, .svg or .pdf by suffix
    bool exportCsv(const QString& path, QString* error = nullptr) const;   // x and one column per line

    // Points drawn in the last refresh (all lines), how long the last refresh took, and how
    // much of it was reducing the lines (the rest is QCustomPlot's replot).
    int drawnPoints() const;
    double lastRefreshMs() const;
    double lastReductionMs() const;
    QCustomPlot* plot() const; // tests and owners that style it

Q_SIGNALS:
    void viewChanged();
    // The user panned or zoomed x (not a refresh following the data): linked plots follow.
    void xRangeChangedByUser(double lower, double upper);
    // The view went back to following the data (fit, double click).
    void viewReset();
    // The mouse is at `x` over the plot; NaN: it left.
    void crosshairMoved(double x);
    void maximizeToggled(bool maximized);
    // An export failed (error) or was written.
    void message(const QString& text, bool error);

protected:
    // A new palette (the desktop's turned dark): the plot's colours follow.
    void changeEvent(QEvent* event) override;
    void enterEvent(QEnterEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    // The constructor's steps: the plot (title, legend, crosshair, what it says empty); the
    // controls; pan, zoom, legend clicks and the cursor.
    void setUpPlot();
    void setUpControls();
    void connectView();
    // refresh()'s steps: a graph (and a raw curve) per line, as the lines look (made again in
    // order when a line's role changed: the legend keeps the lines' order); the view's range
    // following the data; line `i` reduced for [lower, upper] and drawn (the points drawn); the
    // legend's columns.
    void syncLines(const std::vector<app::LineLook>& looks);
    void followData(int64_t points);
    int drawLine(int i, double lower, double upper, int columns, uint64_t revision);
    void fitLegendColumns();
    void applyPalette();
    void hideCrosshair();
    void showValuesAt(const QPointF& at, const QPoint& global);
    QString xText(double x) const;
    void placeLegend();
    static constexpr int kLegendBelowHeight = 210; // shorter plots keep their legend inside the axes
    static constexpr int kMostLinesInside = 3;     // ... or none, when it would cover them
    void applyXTicker();
    void placeToolbar();
    void exportImageAsked();
    void exportCsvAsked();
    // Asks where (`question`), then writes there with `write`, saying how it went.
    void askAndExport(const QString& question, const QString& suggested, const QString& filter,
                      bool (SeriesPlot::*write)(const QString&, QString*) const);

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace strata::ui
