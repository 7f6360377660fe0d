// SeriesPlot's lines: each reduced for the view and handed to QCustomPlot, redrawing only what changed.
#include "ui/plot/series_plot.h"
#include "ui/plot/series_plot_private.h"

#include <QElapsedTimer>

#include <cmath>

namespace strata::ui {

void SeriesPlot::refresh()
{
    QElapsedTimer timer;
    timer.start();
    QCustomPlot* p = d->plot;
    const int lines = d->source ? d->source->lineCount() : 0;
    std::vector<app::LineLook> looks;
    for (int i = 0; i < lines; ++i)
        looks.push_back(d->source->look(i));
    syncLines(looks);
    int64_t points = 0;
    for (int i = 0; i < lines; ++i)
        points += d->source->pointCount(i);

    if (d->follow)
        followData(points);
    d->empty->setVisible(points == 0);

    const QCPRange x = p->xAxis->range();
    const int columns = std::max(p->axisRect()->width(), 1);
    placeLegend();
    fitLegendColumns();
    int drawn = 0;
    const uint64_t revision = d->source ? d->source->revision() : 0;
    for (int i = 0; i < lines; ++i)
        drawn += drawLine(i, x.lower, x.upper, columns, revision);
    d->drawnPoints = drawn;
    d->lastReductionMs = double(timer.nsecsElapsed()) / 1e6;
    p->replot(QCustomPlot::rpImmediateRefresh);
    d->lastRefreshMs = double(timer.nsecsElapsed()) / 1e6;
}

void SeriesPlot::syncLines(const std::vector<app::LineLook>& looks)
{
    QCustomPlot* p = d->plot;
    // A line that is now another role (a band switched on or off): every line made again, so
    // that the legend's entries stay in the lines' order.
    size_t keep = std::min(looks.size(), d->lines.size());
    for (size_t i = 0; i < keep; ++i)
        if (looks[i].role != d->lines[i].look.role)
            keep = 0;
    while (d->lines.size() > keep) {
        p->removeGraph(d->lines.back().graph);
        p->removePlottable(d->lines.back().raw);
        d->lines.pop_back();
    }
    while (d->lines.size() < looks.size()) {
        Private::Line line;
        line.look = looks[d->lines.size()];
        line.graph = p->addGraph();
        line.graph->setAdaptiveSampling(false); // the data arrives reduced per pixel already
        if (Private::isEdge(line.look))
            line.graph->removeFromLegend();
        line.raw = new QCPCurve(p->xAxis, p->yAxis);
        line.raw->removeFromLegend();
        line.raw->setLayer(QStringLiteral("raw"));
        line.raw->setSelectable(QCP::stNone);
        d->lines.push_back(std::move(line));
    }
    for (size_t i = 0; i < looks.size(); ++i)
        d->lines[i].look = looks[i];
}

void SeriesPlot::Private::drawEdge(QCPGraph* graph, const app::Series::Reduction& reduction, double lower, double upper,
                                   int columns, bool high)
{
    graphData.clear();
    const QVector<QPointF>& points = reduction.points;
    const double scale = upper > lower ? columns / (upper - lower) : 0;
    for (qsizetype i = 0; i < points.size();) {
        // The points of one column: its least or greatest value, from its first x to its last.
        const double column = std::floor((points[i].x() - lower) * scale);
        qsizetype end = i + 1;
        double value = points[i].y();
        for (; end < points.size() && std::floor((points[end].x() - lower) * scale) == column; ++end)
            value = high ? std::max(value, points[end].y()) : std::min(value, points[end].y());
        graphData.append(QCPGraphData(points[i].x(), value));
        if (points[end - 1].x() > points[i].x())
            graphData.append(QCPGraphData(points[end - 1].x(), value));
        i = end;
    }
    graph->data()->set(graphData, true);
    graph->setAntialiased(false);
}

int SeriesPlot::drawLine(int i, double lower, double upper, int columns, uint64_t revision)
{
    QCustomPlot* p = d->plot;
    Private::Line& line = d->lines[size_t(i)];
    QCPGraph* graph = line.graph;
    const QString name = d->source->lineName(i);
    graph->setName(name);
    const QColor color = d->color(i);
    const bool edge = Private::isEdge(line.look);
    // A band's edges come and go with its median (whose legend entry is the band's).
    const bool visible = d->visible(i) && (!edge || d->visible(line.look.band));
    graph->setVisible(visible);
    if (QCPAbstractLegendItem* item = p->legend->itemWithPlottable(graph))
        item->setTextColor(palette().color(visible ? QPalette::Active : QPalette::Disabled, QPalette::Text));
    if (line.revision != revision || line.name != name || !visible) {
        line.reduction = {};
        line.rawReduction = {};
        line.revision = revision;
        line.name = name;
    }
    // A line of few points is drawn with a marker at each (a single evaluation, the
    // epochs' validation): a point with no neighbour draws no line.
    const int64_t count = d->source->pointCount(i);
    const bool sparse = !edge && (count < 2 || count * 12 <= columns);
    graph->setPen(edge ? QPen(Qt::NoPen) : QPen(color, sparse ? 1.5 : 1));
    graph->setScatterStyle(sparse ? QCPScatterStyle(QCPScatterStyle::ssDisc, color, 6) : QCPScatterStyle());
    QColor faint = color;
    faint.setAlpha(70);
    line.raw->setPen(QPen(faint, 1));
    // The band's fill: from its greatest values down to its least (the line before).
    const bool fills = line.look.role == app::LineLook::Role::BandHigh && i > 0 &&
                       d->lines[size_t(i) - 1].look.role == app::LineLook::Role::BandLow;
    QColor fill = color;
    fill.setAlpha(theme::isDark(d->palette) ? 80 : 60);
    graph->setBrush(fills ? QBrush(fill) : QBrush(Qt::NoBrush));
    // A band's fill is a polygon of a vertex or two per pixel column: antialiased, it was most
    // of a 64-worker page's replot (its edges are drawn unantialiased too).
    graph->setAntialiasedFill(false);
    graph->setChannelFillGraph(fills ? d->lines[size_t(i) - 1].graph : nullptr);
    // Only what changed is reduced again, and handed to QCustomPlot.
    if (!visible) {
        graph->data()->clear();
        line.raw->data()->clear();
        line.raw->setVisible(false);
        return 0;
    }
    if (d->source->decimated(i, lower, upper, columns, line.reduction) || graph->dataCount() == 0) {
        if (edge)
            d->drawEdge(graph, line.reduction, lower, upper, columns, line.look.role == app::LineLook::Role::BandHigh);
        else
            d->draw(graph, line.reduction, columns);
    }
    // No raw values beneath a band's edges: the fill is the band's.
    bool rawChanged = !line.rawReduction.points.isEmpty();
    if (edge)
        line.rawReduction = {};
    else
        rawChanged = d->source->rawDecimated(i, lower, upper, columns, line.rawReduction);
    if (rawChanged)
        d->draw(line.raw, line.rawReduction, columns);
    line.raw->setVisible(!line.rawReduction.points.isEmpty());
    return graph->dataCount() + line.raw->dataCount();
}

} // namespace strata::ui
