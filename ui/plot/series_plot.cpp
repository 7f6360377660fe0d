// SeriesPlot: building it, its events and palette, its lines' source, colours and visibility.
// Its other parts: series_plot_{curves,axes,legend,cursor,menu}.cpp.
#include "ui/plot/series_plot.h"
#include "ui/plot/series_plot_private.h"

#include "ui/plot/plot_style.h"

#include <QEnterEvent>
#include <QEvent>
#include <QMenu>
#include <QResizeEvent>
#include <QShowEvent>
#include <QTimer>
#include <QVBoxLayout>

namespace strata::ui {

SeriesPlot::SeriesPlot(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>())
{
    d->plot = new QCustomPlot(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(d->plot);

    setUpPlot();
    setUpControls();
    connectView();
    applyPalette();
}

void SeriesPlot::setUpPlot()
{
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
}

void SeriesPlot::setUpControls()
{
    QCustomPlot* p = d->plot;
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
}

void SeriesPlot::connectView()
{
    QCustomPlot* p = d->plot;
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
}

SeriesPlot::~SeriesPlot() = default;

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

void SeriesPlot::setEmptyText(const QString& text)
{
    // Set at every refresh of a live page: a replot only when it says something new.
    if (d->empty->text() == text)
        return;
    d->empty->setText(text);
    d->plot->replot(QCustomPlot::rpQueuedReplot);
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
