// SeriesPlot's legend: under the axes, inside them or none, in as many columns as fit.
#include "ui/plot/series_plot.h"
#include "ui/plot/series_plot_private.h"

namespace strata::ui {

void SeriesPlot::fitLegendColumns()
{
    QCustomPlot* p = d->plot;
    // As many legend columns as the widest entry allows (rearranged when that changes).
    int entry = 60;
    for (int i = 0; i < p->legend->itemCount(); ++i)
        if (const QCPAbstractLegendItem* item = p->legend->item(i)) // a wrapped grid has empty cells
            entry = std::max(entry, item->minimumOuterSizeHint().width());
    if (const int wrap = std::max(1, (p->width() - 8) / (entry + 8)); wrap != p->legend->wrap()) {
        p->legend->setWrap(wrap);
        p->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
}

void SeriesPlot::placeLegend()
{
    QCustomPlot* p = d->plot;
    // Under the axes, where it hides no line; inside them, in a corner, when the plot is too short
    // to give a legend of several rows its own room. An empty legend's maximum width is its
    // margins': in the layout it would narrow the axes to their minimum, so it is out of it then.
    enum class Place { None, Below, Inside } want = Place::None, now = Place::None;
    // A short plot with many lines shows none: they would cover the plot (the values under the
    // cursor and Maximise still name them).
    if (p->legend->itemCount() > 0)
        want = p->height() >= kLegendBelowHeight ? Place::Below
               : p->legend->itemCount() <= kMostLinesInside ? Place::Inside
                                                            : Place::None;
    if (p->plotLayout()->hasElement(2, 0) && p->plotLayout()->element(2, 0) == p->legend)
        now = Place::Below;
    else if (p->axisRect()->insetLayout()->elements(false).contains(p->legend))
        now = Place::Inside;
    // Out of every layout it would still be drawn where it last was (a plot made shorter).
    p->legend->setVisible(want != Place::None);
    if (want == now)
        return;
    if (now == Place::Below)
        p->plotLayout()->take(p->legend);
    else if (now == Place::Inside)
        p->axisRect()->insetLayout()->take(p->legend);
    if (want == Place::Below) {
        p->plotLayout()->addElement(2, 0, p->legend);
        p->legend->setBrush(d->palette.color(QPalette::Base));
    } else if (want == Place::Inside) {
        p->axisRect()->insetLayout()->addElement(p->legend, Qt::AlignTop | Qt::AlignRight);
        QColor base = d->palette.color(QPalette::Base);
        base.setAlpha(200);
        p->legend->setBrush(base);
    }
}

} // namespace strata::ui
