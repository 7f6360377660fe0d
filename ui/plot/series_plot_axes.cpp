// SeriesPlot's axes: the view following the data or set by the user, the x axis' kind and
// ticks, the y scale and units.
#include "ui/plot/series_plot.h"
#include "ui/plot/series_plot_private.h"

#include <QDateTime>

#include <cmath>

namespace strata::ui {

namespace {

// The x range that follows data from `lo` to `hi`: its width is the next of the steps 2^(k/4)
// (a fifth apart) that holds the data and a margin, so that while the run grows the view (and
// every pixel column) stays put until the data needs the next width: the lines' reductions
// are extended with the new points instead of made again (19% room ahead at most).
QCPRange followed(double lo, double hi)
{
    const double span = hi - lo;
    if (!(span > 0) || !std::isfinite(span))
        return lo == hi ? QCPRange(lo - 0.5, hi + 0.5) : QCPRange(lo, hi);
    const double width = std::exp2(std::ceil(4 * std::log2(span * 1.02)) / 4);
    const double lower = lo - 0.01 * width;
    return {lower, lower + width};
}

// A range with room around it, and never empty (QCustomPlot refuses a zero-size range).
QCPRange padded(double lo, double hi, double fraction, bool logarithmic)
{
    if (logarithmic) {
        // A zero (a worker holding no variables) has no place on a log scale: four decades under
        // the top, not down to a tiny number that crowds out the values that can be drawn.
        lo = lo > 0 ? lo : hi > 0 ? hi * 1e-4 : 1e-6;
        hi = hi > lo ? hi : lo * 10;
        return {lo / (1 + fraction * 4), hi * (1 + fraction * 4)};
    }
    if (!(hi > lo)) {
        const double half = std::abs(lo) > 0 ? std::abs(lo) * 0.05 : 0.5;
        return {lo - half, hi + half};
    }
    const double margin = (hi - lo) * fraction;
    return {lo - margin, hi + margin};
}

} // namespace

void SeriesPlot::setAxisLabels(const QString& x, const QString& y)
{
    d->xLabel = x;
    d->plot->yAxis->setLabel(y);
    applyXTicker();
}

QString SeriesPlot::xText(double x) const
{
    switch (d->xAxis) {
    case app::XAxis::WallTime: return QDateTime::fromMSecsSinceEpoch(qint64(x * 1000)).toString(QStringLiteral("HH:mm:ss"));
    case app::XAxis::RelativeSeconds: return QString::number(x, 'f', 1);
    case app::XAxis::Step: break;
    }
    return QString::number(x, 'f', d->integral ? 0 : 2);
}

void SeriesPlot::applyXTicker()
{
    QCPAxis* x = d->plot->xAxis;
    switch (d->xAxis) {
    case app::XAxis::Step:
        x->setLabel(d->xLabel);
        x->setTicker(compactTicker(x, Units::Plain, false, d->integral));
        return;
    case app::XAxis::RelativeSeconds:
        x->setLabel(tr("seconds since the start"));
        x->setTicker(compactTicker(x, Units::Plain, false, false));
        return;
    case app::XAxis::WallTime: {
        x->setLabel(tr("time of day"));
        auto ticker = QSharedPointer<QCPAxisTickerDateTime>::create();
        ticker->setDateTimeFormat(QStringLiteral("HH:mm:ss"));
        ticker->setDateTimeSpec(Qt::LocalTime);
        ticker->setTickCount(4);
        x->setTicker(ticker);
        return;
    }
    }
}

void SeriesPlot::setXAxis(app::XAxis axis)
{
    d->xAxis = axis;
    applyXTicker();
    resetView();
}

app::XAxis SeriesPlot::xAxis() const
{
    return d->xAxis;
}

void SeriesPlot::setYLogarithmic(bool logarithmic)
{
    if (logarithmic == d->logarithmic)
        return;
    d->logarithmic = logarithmic;
    // The scale's own range fix (a log scale has no 0) is not the user moving the view.
    d->settingRange = true;
    d->plot->yAxis->setScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    d->settingRange = false;
    const QSignalBlocker quiet(d->controls->logY());
    d->controls->logY()->setChecked(logarithmic);
    setYUnits(d->units); // the ticker matches the scale
}

bool SeriesPlot::isYLogarithmic() const
{
    return d->logarithmic;
}

void SeriesPlot::setYUnits(Units units)
{
    d->units = units;
    d->plot->yAxis->setTicker(compactTicker(d->plot->yAxis, units, d->logarithmic, false));
    refresh();
}

void SeriesPlot::setXIntegral(bool integral)
{
    d->integral = integral;
    applyXTicker();
    refresh();
}

void SeriesPlot::setFixedYRange(double lower, double upper)
{
    d->fixedY = QCPRange(lower, upper);
    refresh();
}

void SeriesPlot::followData(int64_t points)
{
    QCustomPlot* p = d->plot;
    const QRectF b = points > 0 ? d->source->bounds() : QRectF();
    d->settingRange = true;
    if (points > 0) {
        const QCPRange x = followed(b.left(), b.right());
        // A step axis starts at 0 or later: no negative steps while the run is young.
        const bool steps = d->integral && d->xAxis == app::XAxis::Step;
        p->xAxis->setRange(steps && b.left() >= 0 ? QCPRange(std::max(0.0, x.lower), x.upper) : x);
        p->yAxis->setRange(d->fixedY.size() > 0 ? d->fixedY : padded(b.top(), b.bottom(), 0.05, d->logarithmic));
    } else {
        // Nothing yet (a new run): no axes left from the one before.
        p->xAxis->setRange(0, d->integral && d->xAxis == app::XAxis::Step ? 10 : 1);
        p->yAxis->setRange(d->fixedY.size() > 0 ? d->fixedY : d->logarithmic ? QCPRange(0.1, 10) : QCPRange(0, 1));
    }
    d->settingRange = false;
}

void SeriesPlot::resetView()
{
    d->follow = true;
    refresh();
    Q_EMIT viewChanged();
    Q_EMIT viewReset();
}

bool SeriesPlot::followsData() const
{
    return d->follow;
}

QPair<double, double> SeriesPlot::xRange() const
{
    const QCPRange r = d->plot->xAxis->range();
    return {r.lower, r.upper};
}

void SeriesPlot::setXRange(double lower, double upper)
{
    if (!(upper > lower))
        return;
    d->follow = false;
    d->settingRange = true;
    d->plot->xAxis->setRange(lower, upper);
    d->settingRange = false;
    refresh();
    Q_EMIT viewChanged();
}

} // namespace strata::ui
