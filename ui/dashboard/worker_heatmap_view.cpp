#include "ui/dashboard/worker_heatmap_view.h"

#include "ui/plot/plot_controls.h"
#include "ui/plot/plot_image.h"
#include "ui/plot/plot_style.h"
#include "ui/plot/plot_ticks.h"
#include "ui/shell/dialogs.h"

#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QEvent>
#include <QFontMetrics>
#include <QMenu>
#include <QMouseEvent>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>
#include <memory>

namespace strata::ui {

namespace {

// A sequential scale that reads the same in a light and a dark palette and in grey (viridis's
// stops): the median worker dark blue-green, a straggler yellow.
QCPColorGradient viridis()
{
    QCPColorGradient gradient;
    gradient.setColorStopAt(0.0, QColor(68, 1, 84));
    gradient.setColorStopAt(0.25, QColor(59, 82, 139));
    gradient.setColorStopAt(0.5, QColor(33, 145, 140));
    gradient.setColorStopAt(0.75, QColor(94, 201, 98));
    gradient.setColorStopAt(1.0, QColor(253, 231, 37));
    gradient.setNanHandling(QCPColorGradient::nhTransparent);
    return gradient;
}

QString msText(double ms)
{
    return QString::number(ms, 'f', ms < 10 ? 2 : 1);
}

} // namespace

WorkerHeatmapView::WorkerHeatmapView(const app::MetricsStore& store, QWidget* parent)
    : QWidget(parent), m_heatmap(store), m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->plotLayout()->insertRow(0);
    m_title = new QCPTextElement(m_plot, tr("Time per step of each worker"),
                                 QFont(font().family(), font().pointSize() + 1, QFont::Bold));
    m_plot->plotLayout()->addElement(0, 0, m_title);
    m_plot->plotLayout()->setRowSpacing(0);
    m_plot->legend->setVisible(false);
    m_plot->xAxis->setLabel(tr("step"));
    m_plot->xAxis->setTicker(compactTicker(m_plot->xAxis, TickUnits::Plain, false, true));
    m_plot->yAxis->setRangeReversed(true); // the first worker on top
    m_plot->yAxis->grid()->setVisible(false);
    m_plot->xAxis->grid()->setVisible(false);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    m_plot->yAxis->setSubTicks(false);

    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(true);
    m_map->setGradient(viridis());
    m_map->setDataScaleType(QCPAxis::stLogarithmic);
    m_map->setDataRange(QCPRange(kLeast, kGreatest));
    m_scale = new QCPColorScale(m_plot);
    m_scale->setType(QCPAxis::atRight);
    m_scale->setBarWidth(10);
    m_scale->setDataScaleType(QCPAxis::stLogarithmic);
    m_scale->setGradient(m_map->gradient());
    m_scale->setDataRange(m_map->dataRange());
    m_scale->axis()->setLabel(tr("× the median worker"));
    auto ratios = QSharedPointer<QCPAxisTickerText>::create();
    for (const double ratio : {0.5, 1.0, 2.0, 4.0})
        ratios->addTick(ratio, QStringLiteral("%1×").arg(ratio));
    m_scale->axis()->setTicker(ratios);
    m_scale->axis()->setSubTicks(false);
    m_map->setColorScale(m_scale);
    m_plot->plotLayout()->addElement(1, 1, m_scale);
    // The colour bar as tall as the cells.
    auto* margins = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    m_scale->setMarginGroup(QCP::msTop | QCP::msBottom, margins);

    m_empty = new QCPItemText(m_plot);
    m_empty->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_empty->position->setCoords(0.5, 0.5);
    m_empty->setText(tr("No data yet"));
    m_empty->setSelectable(false);

    setUpControls();
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        const QString text = textAt(event->position().toPoint());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
    });
    applyPalette();
}

void WorkerHeatmapView::setUpControls()
{
    m_controls = new PlotControls(this, {.logY = false, .maximise = true, .csv = false});
    connect(m_controls->fit(), &QAction::triggered, this, &WorkerHeatmapView::fitAsked);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, &WorkerHeatmapView::fitAsked);
    connect(m_controls->maximise(), &QAction::toggled, this, &WorkerHeatmapView::setMaximized);
    connect(m_controls->exportImage(), &QAction::triggered, this, &WorkerHeatmapView::exportImageAsked);
    m_controls->exportImage()->setEnabled(false); // until there are dialogs to ask where
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        QToolTip::hideText();
        std::unique_ptr<QMenu> menu(buildMenu());
        menu->exec(m_plot->mapToGlobal(at));
    });
}

QMenu* WorkerHeatmapView::buildMenu()
{
    return m_controls->buildMenu(this, {});
}

void WorkerHeatmapView::setDialogs(Dialogs* dialogs)
{
    m_dialogs = dialogs;
    m_controls->exportImage()->setEnabled(dialogs);
}

bool WorkerHeatmapView::isMaximized() const
{
    return m_controls->maximise()->isChecked();
}

void WorkerHeatmapView::setMaximized(bool maximized)
{
    QAction* maximise = m_controls->maximise();
    {
        const QSignalBlocker quiet(maximise);
        maximise->setChecked(maximized);
    }
    maximise->setText(maximized ? tr("Restore") : tr("Maximise"));
    Q_EMIT maximizeToggled(maximized);
}

void WorkerHeatmapView::exportImageAsked()
{
    const QString title = m_title->text();
    const QString path = m_dialogs ? m_dialogs->saveFile(this, tr("Export %1").arg(title), title + ".png",
                                                         tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"))
                                   : QString();
    if (path.isEmpty())
        return; // cancelled
    QString error;
    if (savePlotImage(m_plot, path, title, &error))
        Q_EMIT message(tr("Wrote %1").arg(path), false);
    else
        Q_EMIT message(error, true);
}

void WorkerHeatmapView::enterEvent(QEnterEvent* event)
{
    QWidget::enterEvent(event);
    m_controls->placeToolbar();
    m_controls->toolbar()->show();
}

void WorkerHeatmapView::leaveEvent(QEvent* event)
{
    QWidget::leaveEvent(event);
    m_controls->toolbar()->hide();
    QToolTip::hideText();
}

void WorkerHeatmapView::setSteps(double lower, double upper)
{
    m_lower = lower;
    m_upper = upper;
}

void WorkerHeatmapView::refresh()
{
    QElapsedTimer timer;
    timer.start();
    auto [first, last] = m_heatmap.stepRange();
    last += 1; // the last step's column ends after it
    if (std::isfinite(m_lower) && std::isfinite(m_upper) && m_upper > m_lower) {
        first = m_lower;
        last = m_upper;
    }
    const int columns = std::max(m_plot->axisRect()->width(), 1);
    m_grid = last > first ? m_heatmap.grid(first, last, columns) : app::HeatmapGrid{};
    const int rows = int(m_grid.rows.size());
    QCPColorMapData* data = m_map->data();
    const bool drawn = rows > 0 && m_grid.columns > 0;
    m_empty->setVisible(!drawn);
    if (drawn) {
        // Cells are centred on their keys: the first column's centre to the last's.
        const double half = m_grid.width() / 2;
        data->setSize(m_grid.columns, rows);
        data->setRange(QCPRange(m_grid.x0 + half, m_grid.x1 - half), QCPRange(0, rows - 1));
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < m_grid.columns; ++c) {
                const double median = m_grid.medianMs[size_t(c)];
                const double ratio = median > 0 ? m_grid.at(r, c) / median : std::nan("");
                data->setCell(c, r, std::isfinite(ratio) ? std::max(ratio, 1e-3) : std::nan(""));
            }
        m_plot->xAxis->setRange(m_grid.x0, m_grid.x1);
        m_plot->yAxis->setRange(-0.5, rows - 0.5);
    } else {
        data->clear();
        m_plot->xAxis->setRange(0, 1);
        m_plot->yAxis->setRange(-0.5, 0.5);
    }
    m_map->setVisible(drawn);
    labelRows();
    m_plot->replot(QCustomPlot::rpImmediateRefresh);
    m_lastRefreshMs = double(timer.nsecsElapsed()) / 1e6;
}

void WorkerHeatmapView::labelRows()
{
    auto ticker = m_plot->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
    ticker->clear();
    const int rows = int(m_grid.rows.size());
    if (rows == 0)
        return;
    // Every row, or every 2nd, 4th, 8th... as the labels' height allows.
    const double rowHeight = double(m_plot->axisRect()->height()) / rows;
    const int lineHeight = QFontMetrics(m_plot->yAxis->tickLabelFont()).height();
    int every = 1;
    while (every < rows && every * rowHeight < lineHeight)
        every *= 2;
    for (int r = 0; r < rows; r += every)
        ticker->addTick(r, m_grid.rows[r]);
}

QString WorkerHeatmapView::textAt(const QPoint& at) const
{
    if (m_grid.rows.isEmpty() || !m_plot->axisRect()->rect().contains(at))
        return {};
    const int row = int(std::lround(m_plot->yAxis->pixelToCoord(at.y())));
    const int column = m_grid.columnOf(m_plot->xAxis->pixelToCoord(at.x()));
    if (row < 0 || row >= int(m_grid.rows.size()) || column < 0)
        return {};
    // The steps the column holds (whole steps: a column is one at least).
    const double begin = std::ceil(m_grid.columnStart(column));
    const double end = std::ceil(m_grid.columnStart(column + 1)) - 1;
    const QString steps = end > begin ? tr("steps %1–%2").arg(qint64(begin)).arg(qint64(end)) : tr("step %1").arg(qint64(begin));
    const double ms = m_grid.at(row, column), median = m_grid.medianMs[size_t(column)];
    QString text = QStringLiteral("<b>%1</b>, %2<br>").arg(m_grid.rows[row].toHtmlEscaped(), steps);
    if (std::isnan(ms))
        return text + tr("no step reported");
    text += tr("%1 ms a step of its own").arg(msText(ms));
    if (median > 0)
        text += tr("<br>%1× the median worker's %2 ms").arg(ms / median, 0, 'f', 2).arg(msText(median));
    return text;
}

void WorkerHeatmapView::applyPalette()
{
    const QPalette pal = palette();
    stylePlot(m_plot, pal);
    const QColor text = pal.color(QPalette::Text);
    QCPAxis* bar = m_scale->axis();
    bar->setBasePen(QPen(text, 0));
    bar->setTickPen(QPen(text, 0));
    bar->setTickLabelColor(text);
    bar->setLabelColor(text);
    m_empty->setColor(pal.color(QPalette::Disabled, QPalette::Text));
    m_controls->updateIcons();
    m_controls->toolbar()->setPalette(pal);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void WorkerHeatmapView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void WorkerHeatmapView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    m_controls->placeToolbar();
    // Columns and row labels for the new size, once the layout has given the plot its size.
    if (!m_refreshQueued) {
        m_refreshQueued = true;
        QTimer::singleShot(0, this, [this] {
            m_refreshQueued = false;
            refresh();
        });
    }
}

void WorkerHeatmapView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
}

} // namespace strata::ui
