#pragma once
// SeriesPlot: a QCustomPlot view of lines that may hold millions of points. Every replot
// asks its PlotSource for the visible x-range reduced to one min/max per pixel column, so
// drawing cost depends on the widget's width, not on the data, and zooming in shows finer
// detail down to single points. Pan (drag) and zoom (wheel) with the mouse, reset view,
// a crosshair with the values under the cursor, legend entries that hide/show their line,
// export as PNG, SVG or PDF (with legend and axes) and the data as CSV. Tick labels are as
// many as fit without touching; colours follow the palette (light or dark).

#include "app/metrics/store_lines.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <memory>

class QCustomPlot;

namespace strata::ui {

class SeriesPlot : public QWidget {
    Q_OBJECT

public:
    explicit SeriesPlot(QWidget* parent = nullptr);
    ~SeriesPlot() override;

    void setTitle(const QString& title);
    void setAxisLabels(const QString& x, const QString& y);
    // The plot does not own the source; it must outlive the plot or be replaced first.
    void setSource(const app::PlotSource* source);
    void setLineColor(int line, const QColor& color);
    void setLineVisible(int line, bool visible);
    bool isLineVisible(int line) const;
    void setYLogarithmic(bool logarithmic);
    // How y tick labels read: plain numbers with k/M suffixes, or bytes (KB, MB, GB).
    enum class Units { Plain, Bytes };
    void setYUnits(Units units);
    // A y range kept whatever the data (0..1 for a fraction); by default y follows the data.
    void setFixedYRange(double lower, double upper);

    // Re-reads the source for the current view (call when the data changed). While the
    // user has not panned or zoomed, the view follows the data.
    void refresh();
    // Back to the whole data.
    void resetView();
    bool followsData() const;

    // Exports (return false with `error` set on failure).
    bool exportImage(const QString& path, QString* error = nullptr) const; // .png, .svg or .pdf by suffix
    bool exportCsv(const QString& path, QString* error = nullptr) const;   // x and one column per line

    // Points drawn in the last refresh (all lines), how long the last refresh took, and how
    // much of it was reducing the lines (the rest is QCustomPlot's replot).
    int drawnPoints() const;
    double lastRefreshMs() const;
    double lastReductionMs() const;
    QCustomPlot* plot() const; // tests and the dashboard's context menu

Q_SIGNALS:
    void viewChanged();

protected:
    // A new palette (the desktop's turned dark): the plot's colours follow.
    void changeEvent(QEvent* event) override;

private:
    void applyPalette();

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace strata::ui
