#include "ui/plot/series_plot.h"

#include "app/metrics/plot_csv.h"
#include "ui/plot/plot_controls.h"
#include "ui/plot/plot_image.h"
#include "ui/plot/plot_style.h"
#include "ui/shell/dialogs.h"
#include "ui/shell/theme.h"

#include <qcustomplot.h>

#include <QDateTime>
#include <QElapsedTimer>
#include <QEnterEvent>
#include <QEvent>
#include <QResizeEvent>
#include <QShowEvent>
#include <QMenu>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

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
    struct Line {
        QCPGraph* graph = nullptr;
        QCPCurve* raw = nullptr;
        app::Series::Reduction reduction, rawReduction;
        uint64_t revision = 0;
        QString name;
    };
    std::vector<Line> lines;

    QColor color(int line) const
    {
        const QColor c = colors.value(line);
        return c.isValid() ? c : theme::series(line, palette);
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
    void draw(QCPCurve* curve, const app::Series::Reduction& reduction)
    {
        QVector<QCPCurveData> data;
        data.reserve(reduction.points.size());
        for (const QPointF& point : std::as_const(reduction.points))
            data.append(QCPCurveData(double(data.size()), point.x(), point.y()));
        curve->data()->set(data, true);
    }
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
    // Raw values under the smoothed lines.
    p->addLayer(QStringLiteral("raw"), p->layer(QStringLiteral("main")), QCustomPlot::limBelow);
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
    p->xAxis->setTicker(compactTicker(p->xAxis, Units::Plain, false, false));
    p->yAxis->setTicker(compactTicker(p->yAxis, Units::Plain, false, false));

    d->crosshair = new QCPItemStraightLine(p);
    d->crosshair->setVisible(false);
    d->crosshair->setSelectable(false);
    d->empty = new QCPItemText(p);
    d->empty->position->setType(QCPItemPosition::ptAxisRectRatio);
    d->empty->position->setCoords(0.5, 0.5);
    d->empty->setText(tr("No data yet"));
    d->empty->setSelectable(false);

    d->controls = new PlotControls(this, {});
    connect(d->controls->fit(), &QAction::triggered, this, &SeriesPlot::resetView);
    connect(d->controls->logY(), &QAction::toggled, this, &SeriesPlot::setYLogarithmic);
    connect(d->controls->maximise(), &QAction::toggled, this, &SeriesPlot::setMaximized);
    connect(d->controls->exportImage(), &QAction::triggered, this, &SeriesPlot::exportImageAsked);
    connect(d->controls->exportCsv(), &QAction::triggered, this, &SeriesPlot::exportCsvAsked);
    d->controls->exportImage()->setEnabled(false); // until there are dialogs to ask where
    d->controls->exportCsv()->setEnabled(false);
    // The menu opens on the plot itself, the widget under the cursor that receives the right click.
    p->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(p, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        hideCrosshair();
        std::unique_ptr<QMenu> menu(buildMenu());
        menu->exec(d->plot->mapToGlobal(at));
    });

    // Any pan or zoom (a drag, the wheel, or a range set from outside) stops the view
    // following the data; a double click resumes it.
    connect(p, &QCustomPlot::mouseDoubleClick, this, [this] { resetView(); });
    for (QCPAxis* axis : {p->xAxis, p->yAxis})
        connect(axis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this, axis](const QCPRange& range) {
            if (d->settingRange)
                return;
            d->follow = false;
            // A new x range: reduce the data again for it (finer when zoomed in).
            if (axis == d->plot->xAxis) {
                refresh();
                Q_EMIT xRangeChangedByUser(range.lower, range.upper);
            }
            Q_EMIT viewChanged();
        });
    connect(p, &QCustomPlot::legendClick, this, [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) {
        auto* entry = qobject_cast<QCPPlottableLegendItem*>(item);
        if (!entry)
            return;
        for (size_t i = 0; i < d->lines.size(); ++i)
            if (d->lines[i].graph == entry->plottable())
                setLineVisible(int(i), !isLineVisible(int(i)));
    });
    connect(p, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        showValuesAt(event->position(), event->globalPosition().toPoint());
    });
    applyPalette();
}

SeriesPlot::~SeriesPlot() = default;

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

void SeriesPlot::enterEvent(QEnterEvent* event)
{
    QWidget::enterEvent(event);
    d->controls->placeToolbar();
    d->controls->toolbar()->show();
}

void SeriesPlot::leaveEvent(QEvent* event)
{
    QWidget::leaveEvent(event);
    d->controls->toolbar()->hide();
    hideCrosshair();
}

void SeriesPlot::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    d->controls->placeToolbar();
    // The lines reduced for the new width, the legend's columns for it: once the layout has
    // given the plot its size.
    if (!d->refreshQueued) {
        d->refreshQueued = true;
        QTimer::singleShot(0, this, [this] {
            d->refreshQueued = false;
            refresh();
        });
    }
}

void SeriesPlot::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    // Ticks are chosen for the axis' length: made again once the plot has its size on screen
    // (a plot refreshed before it was laid out had room for one tick).
    refresh();
}

void SeriesPlot::applyPalette()
{
    const QPalette pal = palette();
    d->palette = pal;
    stylePlot(d->plot, pal);
    QColor crosshair = pal.color(QPalette::Text);
    crosshair.setAlpha(90);
    d->crosshair->setPen(QPen(crosshair, 1, Qt::DashLine));
    d->empty->setColor(pal.color(QPalette::Disabled, QPalette::Text));
    d->controls->updateIcons();
    d->controls->toolbar()->setPalette(pal);
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

QString SeriesPlot::title() const
{
    return d->title->text();
}

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

void SeriesPlot::setSource(const app::PlotSource* source)
{
    d->source = source;
    for (const Private::Line& line : d->lines) {
        d->plot->removeGraph(line.graph);
        d->plot->removePlottable(line.raw);
    }
    d->lines.clear();
    d->controls->exportCsv()->setEnabled(source && d->dialogs);
    if (source)
        refresh();
}

void SeriesPlot::setLineColor(int line, const QColor& color)
{
    if (d->colors.size() <= line)
        d->colors.resize(line + 1);
    d->colors[line] = color;
    refresh();
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

void SeriesPlot::setEmptyText(const QString& text)
{
    d->empty->setText(text);
    d->plot->replot(QCustomPlot::rpQueuedReplot);
}

void SeriesPlot::refresh()
{
    QElapsedTimer timer;
    timer.start();
    QCustomPlot* p = d->plot;
    const int lines = d->source ? d->source->lineCount() : 0;
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
    int64_t points = 0;
    for (int i = 0; i < lines; ++i)
        points += d->source->pointCount(i);

    if (d->follow) {
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
    d->empty->setVisible(points == 0);

    const QCPRange x = p->xAxis->range();
    const int columns = std::max(p->axisRect()->width(), 1);
    placeLegend();
    // As many legend columns as the widest entry allows (rearranged when that changes).
    int entry = 60;
    for (int i = 0; i < p->legend->itemCount(); ++i)
        if (const QCPAbstractLegendItem* item = p->legend->item(i)) // a wrapped grid has empty cells
            entry = std::max(entry, item->minimumOuterSizeHint().width());
    if (const int wrap = std::max(1, (p->width() - 8) / (entry + 8)); wrap != p->legend->wrap()) {
        p->legend->setWrap(wrap);
        p->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }
    int drawn = 0;
    const uint64_t revision = d->source ? d->source->revision() : 0;
    for (int i = 0; i < lines; ++i) {
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
            continue;
        }
        if (d->source->decimated(i, x.lower, x.upper, columns, line.reduction) || graph->dataCount() == 0)
            d->draw(graph, line.reduction, columns);
        drawn += graph->dataCount();
        if (d->source->rawDecimated(i, x.lower, x.upper, columns, line.rawReduction))
            d->draw(line.raw, line.rawReduction);
        line.raw->setVisible(!line.rawReduction.points.isEmpty());
        drawn += line.raw->dataCount();
    }
    d->drawnPoints = drawn;
    d->lastReductionMs = double(timer.nsecsElapsed()) / 1e6;
    p->replot(QCustomPlot::rpImmediateRefresh);
    d->lastRefreshMs = double(timer.nsecsElapsed()) / 1e6;
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

void SeriesPlot::setDialogs(Dialogs* dialogs)
{
    d->dialogs = dialogs;
    d->controls->exportImage()->setEnabled(dialogs);
    d->controls->exportCsv()->setEnabled(dialogs && d->source);
}

void SeriesPlot::setMenuExtension(std::function<void(QMenu&)> extend)
{
    d->extendMenu = std::move(extend);
}

void SeriesPlot::setMaximizable(bool maximizable)
{
    d->controls->setOptions({.logY = true, .maximise = maximizable, .csv = true});
}

bool SeriesPlot::isMaximized() const
{
    return d->maximized;
}

void SeriesPlot::setMaximized(bool maximized)
{
    if (maximized == d->maximized)
        return;
    d->maximized = maximized;
    const QSignalBlocker quiet(d->controls->maximise());
    d->controls->maximise()->setChecked(maximized);
    d->controls->maximise()->setText(maximized ? tr("Restore") : tr("Maximise"));
    Q_EMIT maximizeToggled(maximized);
}

QMenu* SeriesPlot::buildMenu()
{
    return d->controls->buildMenu(this, d->extendMenu);
}

QWidget* SeriesPlot::hoverToolbar() const
{
    return d->controls->toolbar();
}

void SeriesPlot::exportImageAsked()
{
    askAndExport(tr("Export %1").arg(title()), title() + ".png", tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"),
                 &SeriesPlot::exportImage);
}

void SeriesPlot::exportCsvAsked()
{
    askAndExport(tr("Export %1 data").arg(title()), title() + ".csv", tr("CSV (*.csv)"), &SeriesPlot::exportCsv);
}

void SeriesPlot::askAndExport(const QString& question, const QString& suggested, const QString& filter,
                              bool (SeriesPlot::*write)(const QString&, QString*) const)
{
    const QString path = d->dialogs ? d->dialogs->saveFile(this, question, suggested, filter) : QString();
    if (path.isEmpty())
        return; // cancelled
    QString error;
    if ((this->*write)(path, &error))
        Q_EMIT message(tr("Wrote %1").arg(path), false);
    else
        Q_EMIT message(error, true);
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
