// SeriesPlot's lines: each reduced for the view and handed to QCustomPlot, redrawing only what changed.
#include "ui/plot/series_plot.h"
#include "ui/plot/series_plot_private.h"

#include <QElapsedTimer>

namespace strata::ui {

void SeriesPlot::refresh()
{
    QElapsedTimer timer;
    timer.start();
    QCustomPlot* p = d->plot;
    const int lines = d->source ? d->source->lineCount() : 0;
    syncLines(lines);
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

void SeriesPlot::syncLines(int lines)
{
    QCustomPlot* p = d->plot;
    while (int(d->lines.size()) > lines) {
        p->removeGraph(d->lines.back().graph);
        p->removePlottable(d->lines.back().raw);
        d->lines.pop_back();
    }
    while (int(d->lines.size()) < lines) {
        Private::Line line;
        line.graph = p->addGraph();
        line.graph->setAdaptiveSampling(false); // the data arrives reduced per pixel already
        line.raw = new QCPCurve(p->xAxis, p->yAxis);
        line.raw->removeFromLegend();
        line.raw->setLayer(QStringLiteral("raw"));
        line.raw->setSelectable(QCP::stNone);
        d->lines.push_back(std::move(line));
    }
}

int SeriesPlot::drawLine(int i, double lower, double upper, int columns, uint64_t revision)
{
    QCustomPlot* p = d->plot;
    Private::Line& line = d->lines[size_t(i)];
    QCPGraph* graph = line.graph;
    const QString name = d->source->lineName(i);
    graph->setName(name);
    const QColor color = d->color(i);
    const bool visible = d->visible(i);
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
    const bool sparse = count < 2 || count * 12 <= columns;
    graph->setPen(QPen(color, sparse ? 1.5 : 1));
    graph->setScatterStyle(sparse ? QCPScatterStyle(QCPScatterStyle::ssDisc, color, 6) : QCPScatterStyle());
    QColor faint = color;
    faint.setAlpha(70);
    line.raw->setPen(QPen(faint, 1));
    // Only what changed is reduced again, and handed to QCustomPlot.
    if (!visible) {
        graph->data()->clear();
        line.raw->data()->clear();
        line.raw->setVisible(false);
        return 0;
    }
    if (d->source->decimated(i, lower, upper, columns, line.reduction) || graph->dataCount() == 0)
        d->draw(graph, line.reduction, columns);
    if (d->source->rawDecimated(i, lower, upper, columns, line.rawReduction))
        d->draw(line.raw, line.rawReduction);
    line.raw->setVisible(!line.rawReduction.points.isEmpty());
    return graph->dataCount() + line.raw->dataCount();
}

} // namespace strata::ui
