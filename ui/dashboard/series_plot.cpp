#include "ui/dashboard/series_plot.h"

#include "app/metrics/plot_csv.h"
#include "ui/dashboard/plot_image.h"
#include "ui/dashboard/plot_style.h"
#include "ui/shell/theme.h"

#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QEvent>
#include <QFileInfo>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

namespace strata::ui {

namespace {

// Tick labels that stay short in a narrow plot: 2500 -> "2500", 12,500 -> "12.5k", 80,000,000
// bytes -> "80 MB" (bytes in SI units: the ticks fall on round decimal numbers).
struct Scale {
    double unit;
    const char* suffix;
};

// The scale of labels whose largest value is `magnitude`: thousands from 10,000 up, bytes
// in kB from 1000 up.
Scale scaleFor(double magnitude, SeriesPlot::Units units)
{
    static const Scale plain[] = {{1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    static const Scale sizes[] = {{1e9, " GB"}, {1e6, " MB"}, {1e3, " kB"}};
    const bool bytes = units == SeriesPlot::Units::Bytes;
    for (const Scale& s : bytes ? sizes : plain)
        if (magnitude >= (s.unit == 1e3 && !bytes ? 1e4 : s.unit))
            return s;
    return {1, bytes ? " B" : ""};
}

// `decimals`: digits after the point of the scaled value (trailing zeros dropped: "5k" beside
// "7.5k"), or -1 for three significant digits.
QString compactLabel(double value, const Scale& scale, int decimals)
{
    if (value == 0)
        return QStringLiteral("0");
    const double scaled = value / scale.unit;
    QString number = decimals < 0 ? QString::number(scaled, 'g', 3) : QString::number(scaled, 'f', decimals);
    if (decimals > 0) {
        while (number.endsWith('0'))
            number.chop(1);
        if (number.endsWith('.'))
            number.chop(1);
    }
    return number + QLatin1String(scale.suffix);
}

// Digits after the point that write every multiple of `step` (in `scale`) exactly: a step of
// 2500 in thousands -> 1 ("2.5k", "5k"); -1 when no few digits do.
int decimalsFor(double step, const Scale& scale)
{
    const double scaled = step / scale.unit;
    for (int d = 0; d <= 6; ++d) {
        const double shifted = scaled * std::pow(10.0, d);
        if (std::abs(shifted - std::round(shifted)) < 1e-6 * std::max(1.0, shifted))
            return d;
    }
    return -1;
}

// As many ticks as fit the axis: fewer are asked for until neighbouring labels leave a gap
// (half a line's height) between them, whatever the plot's size and the labels' widths.
template<typename Base>
class CompactTicker : public Base {
public:
    CompactTicker(SeriesPlot::Units units, const QCPAxis* axis) : m_units(units), m_axis(axis) {}

    void generate(const QCPRange& range, const QLocale& locale, QChar formatChar, int precision, QVector<double>& ticks,
                  QVector<double>* subTicks, QVector<QString>* tickLabels) override
    {
        for (int count = kMostTicks;; --count) {
            Base::setTickCount(count);
            Base::generate(range, locale, formatChar, precision, ticks, subTicks, tickLabels);
            if (count <= 1 || !tickLabels || fits(ticks, *tickLabels))
                return;
        }
    }

protected:
    QVector<QString> createLabelVector(const QVector<double>& ticks, const QLocale&, QChar, int) override
    {
        QVector<QString> labels;
        labels.reserve(ticks.size());
        if constexpr (std::is_same_v<Base, QCPAxisTickerLog>) {
            // Powers apart: each in its own scale.
            for (const double t : ticks)
                labels << compactLabel(t, scaleFor(std::abs(t), m_units), -1);
        } else {
            // One scale and one number of decimals for all, so that neighbours read alike.
            const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 0;
            double largest = 0;
            for (const double t : ticks)
                largest = std::max(largest, std::abs(t));
            const Scale scale = scaleFor(largest, m_units);
            const int decimals = step > 0 ? decimalsFor(step, scale) : -1;
            for (const double t : ticks)
                labels << compactLabel(std::abs(t) < step * 1e-9 ? 0 : t, scale, decimals); // no "-0"
        }
        return labels;
    }

private:
    static constexpr int kMostTicks = 8;

    bool fits(const QVector<double>& ticks, const QVector<QString>& labels) const
    {
        const QFontMetrics metrics(m_axis->tickLabelFont());
        const bool horizontal = m_axis->orientation() == Qt::Horizontal;
        const double gap = metrics.height() / 2.0;
        for (qsizetype i = 1; i < ticks.size(); ++i) {
            const double distance = std::abs(m_axis->coordToPixel(ticks[i]) - m_axis->coordToPixel(ticks[i - 1]));
            const double needed = horizontal
                                      ? (metrics.horizontalAdvance(labels[i]) + metrics.horizontalAdvance(labels[i - 1])) / 2.0
                                      : metrics.height();
            if (distance < needed + gap)
                return false;
        }
        return true;
    }

    SeriesPlot::Units m_units;
    const QCPAxis* m_axis;
};

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

struct SeriesPlot::Private {
    QCustomPlot* plot = nullptr;
    QCPTextElement* title = nullptr;
    QCPItemStraightLine* crosshair = nullptr;
    const app::PlotSource* source = nullptr;
    QVector<QColor> colors;  // by line; invalid: the palette's
    QPalette palette;        // the widget's, as of its last change
    QVector<bool> hidden;    // by line
    bool follow = true;      // the view tracks the data until the user pans or zooms
    bool logarithmic = false;
    SeriesPlot::Units units = SeriesPlot::Units::Plain;
    QCPRange fixedY;         // size 0: y follows the data
    bool settingRange = false; // ranges changed by refresh(), not by the user
    int drawnPoints = 0;
    double lastRefreshMs = 0, lastReductionMs = 0;
    QVector<QCPGraphData> graphData;
    // What each line's graph holds: its reduction for the view, extended as the line grows
    // (app::Series::Reduction), valid while the source's revision and the line's name stay.
    struct Line {
        app::Series::Reduction reduction;
        uint64_t revision = 0;
        QString name;
    };
    std::vector<Line> reduced;

    QColor color(int line) const
    {
        const QColor c = colors.value(line);
        return c.isValid() ? c : theme::series(line, palette);
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
    // One polyline per line: QCustomPlot's "fast polylines" draw each segment with a call of its
    // own, which costs more than the segment on 35,000 of them (4.5 -> 3 ms a replot).
    p->setPlottingHint(QCP::phFastPolylines, false);
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
    p->xAxis->setTicker(QSharedPointer<CompactTicker<QCPAxisTicker>>::create(Units::Plain, p->xAxis));
    p->yAxis->setTicker(QSharedPointer<CompactTicker<QCPAxisTicker>>::create(Units::Plain, p->yAxis));

    d->crosshair = new QCPItemStraightLine(p);
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
    applyPalette();
}

SeriesPlot::~SeriesPlot() = default;

void SeriesPlot::applyPalette()
{
    const QPalette pal = palette();
    d->palette = pal;
    stylePlot(d->plot, pal);
    QColor crosshair = pal.color(QPalette::Text);
    crosshair.setAlpha(90);
    d->crosshair->setPen(QPen(crosshair, 1, Qt::DashLine));
    refresh(); // the lines' and legend's colours
}

void SeriesPlot::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

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
    d->reduced.clear();
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
    // The scale's own range fix (a log scale has no 0) is not the user moving the view.
    d->settingRange = true;
    d->plot->yAxis->setScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    d->settingRange = false;
    setYUnits(d->units); // the ticker matches the scale
}

void SeriesPlot::setYUnits(Units units)
{
    d->units = units;
    QCPAxis* y = d->plot->yAxis;
    if (d->logarithmic)
        y->setTicker(QSharedPointer<CompactTicker<QCPAxisTickerLog>>::create(units, y));
    else
        y->setTicker(QSharedPointer<CompactTicker<QCPAxisTicker>>::create(units, y));
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
    d->reduced.resize(size_t(p->graphCount())); // a new graph holds nothing yet
    while (p->graphCount() < lines) {
        QCPGraph* graph = p->addGraph();
        graph->setAdaptiveSampling(false); // the data arrives reduced per pixel already
    }

    if (d->follow && d->source) {
        const QRectF b = d->source->bounds();
        if (!b.isNull()) {
            d->settingRange = true;
            p->xAxis->setRange(followed(b.left(), b.right()));
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
    const uint64_t revision = d->source ? d->source->revision() : 0;
    d->reduced.resize(size_t(lines));
    for (int i = 0; i < lines; ++i) {
        QCPGraph* graph = p->graph(i);
        const QString name = d->source->lineName(i);
        graph->setName(name);
        const QColor color = d->color(i);
        graph->setPen(QPen(color, 1));
        const bool visible = d->visible(i);
        graph->setVisible(visible);
        if (QCPAbstractLegendItem* item = p->legend->itemWithPlottable(graph))
            item->setTextColor(palette().color(visible ? QPalette::Active : QPalette::Disabled, QPalette::Text));
        Private::Line& line = d->reduced[size_t(i)];
        if (line.revision != revision || line.name != name || !visible)
            line = {{}, revision, name};
        // Only what changed is reduced again, and handed to QCustomPlot.
        if (!visible) {
            graph->data()->clear();
            continue;
        }
        if (!d->source->decimated(i, x.lower, x.upper, columns, line.reduction) && graph->dataCount() > 0) {
            drawn += graph->dataCount();
            continue;
        }
        d->graphData.clear();
        d->graphData.reserve(line.reduction.points.size());
        for (const QPointF& point : std::as_const(line.reduction.points))
            d->graphData.append(QCPGraphData(point.x(), point.y()));
        graph->data()->set(d->graphData, true);
        // A line denser than the pixels is a min/max envelope: antialiasing it costs a third
        // of the replot and shows nothing more.
        graph->setAntialiased(d->graphData.size() <= columns * 3 / 2);
        drawn += int(d->graphData.size());
    }
    d->drawnPoints = drawn;
    d->lastReductionMs = double(timer.nsecsElapsed()) / 1e6;
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

double SeriesPlot::lastReductionMs() const
{
    return d->lastReductionMs;
}

QCustomPlot* SeriesPlot::plot() const
{
    return d->plot;
}

} // namespace strata::ui
