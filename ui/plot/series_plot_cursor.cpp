// SeriesPlot's crosshair and the values under the cursor.
#include "ui/plot/series_plot.h"
#include "ui/plot/series_plot_private.h"

#include <QToolTip>

#include <cmath>
#include <limits>

namespace strata::ui {

void SeriesPlot::showValuesAt(const QPointF& at, const QPoint& global)
{
    QCustomPlot* plot = d->plot;
    if (!plot->axisRect()->rect().contains(at.toPoint()) || d->lines.empty()) {
        hideCrosshair();
        return;
    }
    const double x = plot->xAxis->pixelToCoord(at.x());
    showCrosshairAt(x);
    Q_EMIT crosshairMoved(x);
    // The drawn point nearest the cursor on each visible line.
    QString text = QStringLiteral("<b>%1 %2</b>").arg(plot->xAxis->label(), xText(x));
    for (size_t i = 0; i < d->lines.size(); ++i) {
        QCPGraph* graph = d->lines[i].graph;
        if (!graph->visible() || graph->data()->isEmpty())
            continue;
        auto it = graph->data()->findBegin(x, false);
        if (it != graph->data()->constBegin() && it != graph->data()->constEnd()
            && std::abs((it - 1)->key - x) < std::abs(it->key - x))
            --it;
        if (it == graph->data()->constEnd())
            --it;
        text += QStringLiteral("<br><span style='color:%1'>&#9632;</span> %2: %3 <i>(at %4)</i>")
                    .arg(d->color(int(i)).name(), graph->name().toHtmlEscaped())
                    .arg(it->value, 0, 'g', 5)
                    .arg(xText(it->key));
    }
    QToolTip::showText(global, text, plot);
}

void SeriesPlot::showCrosshairAt(double x)
{
    if (!std::isfinite(x)) {
        if (d->crosshair->visible()) {
            d->crosshair->setVisible(false);
            d->plot->replot(QCustomPlot::rpQueuedReplot);
        }
        return;
    }
    d->crosshair->point1->setCoords(x, 0);
    d->crosshair->point2->setCoords(x, 1);
    d->crosshair->setVisible(true);
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

bool SeriesPlot::crosshairVisible() const
{
    return d->crosshair->visible();
}

void SeriesPlot::hideCrosshair()
{
    QToolTip::hideText();
    const bool shown = d->crosshair->visible();
    showCrosshairAt(std::numeric_limits<double>::quiet_NaN());
    if (shown)
        Q_EMIT crosshairMoved(std::numeric_limits<double>::quiet_NaN());
}

} // namespace strata::ui
