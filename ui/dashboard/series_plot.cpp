#include "ui/dashboard/series_plot.h"

#include "app/metrics/plot_csv.h"
#include "ui/dashboard/plot_image.h"

#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QFileInfo>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

namespace strata::ui {

namespace {

// Tableau's ten: distinct on screen and in print.
const QColor kPalette[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                           QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                           QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f), QColor(0xbc, 0xbd, 0x22),
                           QColor(0x17, 0xbe, 0xcf)};

// Tick labels that stay short in a narrow plot: 2500 -> "2.5k", 80000000 bytes -> "76 MB".
QString compactLabel(double value, SeriesPlot::Units units)
{
    if (units == SeriesPlot::Units::Bytes)
        return value <= 0 ? QStringLiteral("0")
                          : QLocale().formattedDataSize(qint64(value), value < 1024 ? 0 : 1,
                                                        QLocale::DataSizeTraditionalFormat);
    const double magnitude = std::abs(value);
    const auto scaled = [&](double unit, const char* suffix) {
        return QString::number(value / unit, 'g', 3) + QLatin1String(suffix);
    };
    if (magnitude >= 1e9)
        return scaled(1e9, "G");
    if (magnitude >= 1e6)
        return scaled(1e6, "M");
    if (magnitude >= 1e4)
        return scaled(1e3, "k");
    return QString::number(value, 'g', 4);
}

template<typename Base>
class CompactTicker : public Base {
public:
    explicit CompactTicker(SeriesPlot::Units units) : m_units(units) { Base::setTickCount(4); }

protected:
    QString getTickLabel(double tick, const QLocale&, QChar, int) override { return compactLabel(tick, m_units); }

private:
    SeriesPlot::Units m_units;
};

// A range with room around it, and never empty (QCustomPlot refuses a zero-size range).
QCPRange padded(double lo, double hi, double fraction, bool logarithmic)
{
    if (logarithmic) {
        lo = lo > 0 ? lo : 1e-6;
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

struct SeriesPlot::Private {
    QCustomPlot* plot = nullptr;
    QCPTextElement* title = nullptr;
    QCPItemStraightLine* crosshair = nullptr;
    const app::PlotSource* source = nullptr;
    QVector<QColor> colors;  // by line; invalid: the palette's
    QVector<bool> hidden;    // by line
    bool follow = true;      // the view tracks the data until the user pans or zooms
    bool logarithmic = false;
    SeriesPlot::Units units = SeriesPlot::Units::Plain;
    QCPRange fixedY;         // size 0: y follows the data
    bool settingRange = false; // ranges changed by refresh(), not by the user
    int drawnPoints = 0;
    double lastRefreshMs = 0;
    QVector<QPointF> buffer;
    QVector<QCPGraphData> graphData;

    QColor color(int line) const
    {
        const QColor c = colors.value(line);
        return c.isValid() ? c : kPalette[line % std::size(kPalette)];
    }
    bool visible(int line) const { return !hidden.value(line, false); }
};

SeriesPlot::SeriesPlot(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>())
{
    d->plot = new QCustomPlot(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(d->plot);

    QCustomPlot* p = d->plot;
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    p->setNoAntialiasingOnDrag(true);
    p->setPlottingHint(QCP::phFastPolylines, true);
    p->plotLayout()->insertRow(0);
    d->title = new QCPTextElement(p, QString(), QFont(font().family(), font().pointSize() + 1, QFont::Bold));
    p->plotLayout()->addElement(0, 0, d->title);
    // The legend goes under the axes, in columns, so it never hides a line.
    p->legend->setVisible(true);
    p->legend->setFont(QFont(font().family(), std::max(font().pointSize() - 1, 6)));
    p->legend->setBorderPen(Qt::NoPen);
    p->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    p->legend->setMargins(QMargins(2, 0, 2, 2));
    p->legend->setRowSpacing(0);
    p->axisRect()->insetLayout()->take(p->legend);
    p->plotLayout()->addElement(2, 0, p->legend);
    p->plotLayout()->setRowStretchFactor(2, 0.001);
    p->plotLayout()->setRowSpacing(0);
    p->xAxis->setTicker(QSharedPointer<CompactTicker<QCPAxisTicker>>::create(Units::Plain));
    p->yAxis->setTicker(QSharedPointer<CompactTicker<QCPAxisTicker>>::create(Units::Plain));

    d->crosshair = new QCPItemStraightLine(p);
    d->crosshair->setPen(QPen(QColor(0, 0, 0, 90), 1, Qt::DashLine));
    d->crosshair->setVisible(false);
    d->crosshair->setSelectable(false);

    // Any pan or zoom (a drag, the wheel, or a range set from outside) stops the view
    // following the data; a double click resumes it.
    connect(p, &QCustomPlot::mouseDoubleClick, this, [this] { resetView(); });
    for (QCPAxis* axis : {p->xAxis, p->yAxis})
        connect(axis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this, axis] {
            if (d->settingRange)
                return;
            d->follow = false;
            // A new x range: reduce the data again for it (finer when zoomed in).
            if (axis == d->plot->xAxis)
                refresh();
            Q_EMIT viewChanged();
        });
    connect(p, &QCustomPlot::legendClick, this, [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) {
        auto* entry = qobject_cast<QCPPlottableLegendItem*>(item);
        if (!entry)
            return;
        for (int i = 0; i < d->plot->graphCount(); ++i)
            if (d->plot->graph(i) == entry->plottable())
                setLineVisible(i, !isLineVisible(i));
    });
    connect(p, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        QCustomPlot* plot = d->plot;
        const QPointF at = event->position();
        if (!plot->axisRect()->rect().contains(at.toPoint()) || plot->graphCount() == 0) {
            d->crosshair->setVisible(false);
            QToolTip::hideText();
            plot->replot(QCustomPlot::rpQueuedReplot);
            return;
        }
        const double x = plot->xAxis->pixelToCoord(at.x());
        d->crosshair->point1->setCoords(x, 0);
        d->crosshair->point2->setCoords(x, 1);
        d->crosshair->setVisible(true);
        // The drawn point nearest the cursor on each visible line.
        QString text = QStringLiteral("<b>%1 %2</b>").arg(plot->xAxis->label()).arg(x, 0, 'f', 0);
        for (int i = 0; i < plot->graphCount(); ++i) {
            QCPGraph* graph = plot->graph(i);
            if (!graph->visible() || graph->data()->isEmpty())
                continue;
            auto it = graph->data()->findBegin(x, false);
            if (it != graph->data()->constBegin() && it != graph->data()->constEnd()
                && std::abs((it - 1)->key - x) < std::abs(it->key - x))
                --it;
            if (it == graph->data()->constEnd())
                --it;
            text += QStringLiteral("<br><span style='color:%1'>&#9632;</span> %2: %3 <i>(at %4)</i>")
                        .arg(d->color(i).name(), graph->name().toHtmlEscaped())
                        .arg(it->value, 0, 'g', 5)
                        .arg(it->key, 0, 'f', 0);
        }
        QToolTip::showText(event->globalPosition().toPoint(), text, plot);
        plot->replot(QCustomPlot::rpQueuedReplot);
    });
}

SeriesPlot::~SeriesPlot() = default;

void SeriesPlot::setTitle(const QString& title)
{
    d->title->setText(title);
}

void SeriesPlot::setAxisLabels(const QString& x, const QString& y)
{
    d->plot->xAxis->setLabel(x);
    d->plot->yAxis->setLabel(y);
}

void SeriesPlot::setSource(const app::PlotSource* source)
{
    d->source = source;
    d->plot->clearGraphs();
    if (source)
        refresh();
}

void SeriesPlot::setLineColor(int line, const QColor& color)
{
    if (d->colors.size() <= line)
        d->colors.resize(line + 1);
    d->colors[line] = color;
    if (line < d->plot->graphCount())
        d->plot->graph(line)->setPen(QPen(color, 1));
}

void SeriesPlot::setLineVisible(int line, bool visible)
{
    if (d->hidden.size() <= line)
        d->hidden.resize(line + 1, false);
    d->hidden[line] = !visible;
    refresh();
}

bool SeriesPlot::isLineVisible(int line) const
{
    return d->visible(line);
}

void SeriesPlot::setYLogarithmic(bool logarithmic)
{
    d->logarithmic = logarithmic;
    d->plot->yAxis->setScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    setYUnits(d->units); // the ticker matches the scale
}

void SeriesPlot::setYUnits(Units units)
{
    d->units = units;
    QCPAxis* y = d->plot->yAxis;
    if (d->logarithmic)
        y->setTicker(QSharedPointer<CompactTicker<QCPAxisTickerLog>>::create(units));
    else
        y->setTicker(QSharedPointer<CompactTicker<QCPAxisTicker>>::create(units));
    refresh();
}

void SeriesPlot::setFixedYRange(double lower, double upper)
{
    d->fixedY = QCPRange(lower, upper);
    refresh();
}

void SeriesPlot::refresh()
{
    QElapsedTimer timer;
    timer.start();
    QCustomPlot* p = d->plot;
    const int lines = d->source ? d->source->lineCount() : 0;
    while (p->graphCount() > lines)
        p->removeGraph(p->graphCount() - 1);
    while (p->graphCount() < lines) {
        QCPGraph* graph = p->addGraph();
        graph->setAdaptiveSampling(false); // the data arrives reduced per pixel already
    }

    if (d->follow && d->source) {
        const QRectF b = d->source->bounds();
        if (!b.isNull()) {
            d->settingRange = true;
            p->xAxis->setRange(padded(b.left(), b.right(), 0.01, false));
            p->yAxis->setRange(d->fixedY.size() > 0 ? d->fixedY : padded(b.top(), b.bottom(), 0.05, d->logarithmic));
            d->settingRange = false;
        }
    }

    const QCPRange x = p->xAxis->range();
    const int columns = std::max(p->axisRect()->width(), 1);
    // As many legend columns as fit (rearranged when that changes).
    if (const int wrap = std::max(1, p->width() / 170); wrap != p->legend->wrap()) {
        p->legend->setWrap(wrap);
        p->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
    int drawn = 0;
    for (int i = 0; i < lines; ++i) {
        QCPGraph* graph = p->graph(i);
        graph->setName(d->source->lineName(i));
        const QColor color = d->color(i);
        graph->setPen(QPen(color, 1));
        const bool visible = d->visible(i);
        graph->setVisible(visible);
        if (QCPAbstractLegendItem* item = p->legend->itemWithPlottable(graph))
            item->setTextColor(visible ? Qt::black : Qt::gray);
        d->graphData.clear();
        if (visible) {
            d->source->decimated(i, x.lower, x.upper, columns, d->buffer);
            d->graphData.reserve(d->buffer.size());
            for (const QPointF& point : std::as_const(d->buffer))
                d->graphData.append(QCPGraphData(point.x(), point.y()));
        }
        graph->data()->set(d->graphData, true);
        // A line denser than the pixels is a min/max envelope: antialiasing it costs a third
        // of the replot and shows nothing more.
        graph->setAntialiased(d->graphData.size() <= columns * 3 / 2);
        drawn += int(d->graphData.size());
    }
    d->drawnPoints = drawn;
    p->replot(QCustomPlot::rpImmediateRefresh);
    d->lastRefreshMs = double(timer.nsecsElapsed()) / 1e6;
}

void SeriesPlot::resetView()
{
    d->follow = true;
    refresh();
    Q_EMIT viewChanged();
}

bool SeriesPlot::followsData() const
{
    return d->follow;
}

bool SeriesPlot::exportImage(const QString& path, QString* error) const
{
    const bool crosshair = d->crosshair->visible();
    d->crosshair->setVisible(false);
    const bool ok = savePlotImage(d->plot, path, d->title->text(), error);
    d->crosshair->setVisible(crosshair);
    return ok;
}

bool SeriesPlot::exportCsv(const QString& path, QString* error) const
{
    if (!d->source) {
        if (error)
            *error = tr("Nothing to export: the plot has no data");
        return false;
    }
    return app::writePlotCsv(*d->source, d->plot->xAxis->label(), path, error);
}

int SeriesPlot::drawnPoints() const
{
    return d->drawnPoints;
}

double SeriesPlot::lastRefreshMs() const
{
    return d->lastRefreshMs;
}

QCustomPlot* SeriesPlot::plot() const
{
    return d->plot;
}

} // namespace strata::ui
