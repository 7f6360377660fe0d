#pragma once
// SeriesPlot's state, shared by its sources (series_plot*.cpp). Internal to them.

#include "app/metrics/series.h"
#include "app/metrics/store_lines.h"
#include "ui/plot/plot_controls.h"
#include "ui/plot/series_plot.h"
#include "ui/shell/theme.h"

#include <qcustomplot.h>

#include <QColor>
#include <QPalette>
#include <QString>
#include <QVector>

#include <functional>
#include <vector>

namespace strata::ui {

struct SeriesPlot::Private {
    QCustomPlot* plot = nullptr;
    QCPTextElement* title = nullptr;
    QCPItemStraightLine* crosshair = nullptr;
    QCPItemText* empty = nullptr; // what the plot says while it has no points
    PlotControls* controls = nullptr;
    const app::PlotSource* source = nullptr;
    QVector<QColor> colors;  // by line; invalid: the palette's
    QPalette palette;        // the widget's, as of its last change
    QVector<bool> hidden;    // by line
    bool follow = true;      // the view tracks the data until the user pans or zooms
    bool logarithmic = false;
    bool integral = false;
    app::XAxis xAxis = app::XAxis::Step;
    QString xLabel; // the step axis' label (the time axes have their own)
    SeriesPlot::Units units = SeriesPlot::Units::Plain;
    QCPRange fixedY;         // size 0: y follows the data
    bool settingRange = false; // ranges changed by refresh(), not by the user
    int drawnPoints = 0;
    double lastRefreshMs = 0, lastReductionMs = 0;
    QVector<QCPGraphData> graphData;
    Dialogs* dialogs = nullptr;
    std::function<void(QMenu&)> extendMenu;
    bool maximized = false;
    bool refreshQueued = false; // a refresh after a resize is on its way
    // What each line's graph holds: its reduction for the view, extended as the line grows
    // (app::Series::Reduction), valid while the source's revision and the line's name stay.
    // `raw`: the line's raw values under its smoothed one (empty while not smoothed).
    // The raw line is a QCPCurve, so that graph(i) stays line i for whoever reads the plot.
    // `look`: how the source says to draw it (a band's edges have no legend entry, and fill).
    struct Line {
        QCPGraph* graph = nullptr;
        QCPCurve* raw = nullptr;
        app::Series::Reduction reduction, rawReduction;
        uint64_t revision = 0;
        QString name;
        app::LineLook look;
    };
    std::vector<Line> lines;

    QColor color(int line) const
    {
        const QColor c = colors.value(line);
        if (c.isValid())
            return c;
        return theme::series(size_t(line) < lines.size() ? lines[size_t(line)].look.colour : line, palette);
    }
    static bool isEdge(const app::LineLook& look)
    {
        return look.role == app::LineLook::Role::BandLow || look.role == app::LineLook::Role::BandHigh;
    }
    bool visible(int line) const { return !hidden.value(line, false); }
    // `reduction`'s points handed to `graph` (only when they changed).
    void draw(QCPGraph* graph, const app::Series::Reduction& reduction, int columns)
    {
        graphData.clear();
        graphData.reserve(reduction.points.size());
        for (const QPointF& point : std::as_const(reduction.points))
            graphData.append(QCPGraphData(point.x(), point.y()));
        graph->data()->set(graphData, true);
        // A line denser than the pixels is a min/max envelope: antialiasing it costs a third
        // of the replot and shows nothing more.
        graph->setAntialiased(graphData.size() <= columns * 3 / 2);
    }
    // A band's edge: in each pixel column of [lower, upper] its least (`high` false) or greatest
    // value, held across the column, so that the fill between the two edges covers every value
    // of the column and the edges never cross.
    void drawEdge(QCPGraph* graph, const app::Series::Reduction& reduction, double lower, double upper, int columns,
                  bool high);
    void draw(QCPCurve* curve, const app::Series::Reduction& reduction, int columns)
    {
        QVector<QCPCurveData> data;
        data.reserve(reduction.points.size());
        for (const QPointF& point : std::as_const(reduction.points))
            data.append(QCPCurveData(double(data.size()), point.x(), point.y()));
        curve->data()->set(data, true);
        curve->setAntialiased(data.size() <= columns * 3 / 2); // as a graph's: a faint envelope gains nothing
    }
};

} // namespace strata::ui
