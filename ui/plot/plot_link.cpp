#include "ui/plot/plot_link.h"

#include "ui/plot/series_plot.h"

namespace strata::ui {

PlotLink::PlotLink(QObject* parent) : QObject(parent) {}

template<typename Apply>
void PlotLink::forOthers(SeriesPlot* source, Apply apply)
{
    if (m_applying)
        return;
    m_applying = true;
    for (const QPointer<SeriesPlot>& plot : m_plots)
        if (plot && plot != source)
            apply(plot.data());
    m_applying = false;
}

void PlotLink::add(SeriesPlot* plot)
{
    m_plots.emplace_back(plot);
    connect(plot, &SeriesPlot::xRangeChangedByUser, this, [this, plot](double lower, double upper) {
        forOthers(plot, [&](SeriesPlot* other) { other->setXRange(lower, upper); });
    });
    connect(plot, &SeriesPlot::viewReset, this, [this, plot] {
        forOthers(plot, [](SeriesPlot* other) { other->resetView(); });
    });
    connect(plot, &SeriesPlot::crosshairMoved, this, [this, plot](double x) {
        forOthers(plot, [&](SeriesPlot* other) { other->showCrosshairAt(x); });
    });
}

} // namespace strata::ui
