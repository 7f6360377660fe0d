#pragma once
// SeriesPlot: a QCustomPlot view of lines that may hold millions of points. Every replot
// asks its PlotSource for the visible x-range reduced to one min/max per pixel column, so
// drawing cost depends on the widget's width, not on the data, and zooming in shows finer
// detail down to single points. Pan (drag) and zoom (wheel) with the mouse, reset view,
// a crosshair with the values under the cursor, legend entries that hide/show their line,
// export as PNG, SVG or PDF (with legend and axes) and the data as CSV.

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include <functional>

class QCustomPlot;

namespace strata::ui {

// Where a SeriesPlot gets its lines. Implemented over the MetricsStore by the dashboard.
class PlotSource {
public:
    virtual ~PlotSource() = default;
    virtual int lineCount() const = 0;
    virtual QString lineName(int line) const = 0;
    // The extent of every line's points (for "reset view"); an empty rect when no data.
    virtual QRectF bounds() const = 0;
    // Line `line`'s points in [x0, x1] reduced for `columns` pixel columns (Series::decimate).
    virtual void decimated(int line, double x0, double x1, int columns, QVector<QPointF>& out) const = 0;
    // Every point of the line, in order (CSV export).
    virtual void forEachPoint(int line, const std::function<void(double x, double y)>& visit) const = 0;
};

class SeriesPlot : public QWidget {
    Q_OBJECT

public:
    explicit SeriesPlot(QWidget* parent = nullptr);
    ~SeriesPlot() override;

    void setTitle(const QString& title);
    void setAxisLabels(const QString& x, const QString& y);
    // The plot does not own the source; it must outlive the plot or be replaced first.
    void setSource(const PlotSource* source);
    void setLineColor(int line, const QColor& color);
    void setLineVisible(int line, bool visible);
    bool isLineVisible(int line) const;
    void setYLogarithmic(bool logarithmic);

    // Re-reads the source for the current view (call when the data changed). While the
    // user has not panned or zoomed, the view follows the data.
    void refresh();
    // Back to the whole data.
    void resetView();
    bool followsData() const;

    // Exports (return false with `error` set on failure).
    bool exportImage(const QString& path, QString* error = nullptr) const; // .png, .svg or .pdf by suffix
    bool exportCsv(const QString& path, QString* error = nullptr) const;   // x and one column per line

    // Points drawn in the last refresh (all lines), and how long the last refresh took.
    int drawnPoints() const;
    double lastRefreshMs() const;
    QCustomPlot* plot() const; // tests and the dashboard's context menu

Q_SIGNALS:
    void viewChanged();

private:
    struct Private;
    Private* d;
};

} // namespace strata::ui
