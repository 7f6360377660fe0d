// TimelineView: building it, following the latest steps or the range the user moved to, its
// rows and labels, the mouse over a span, its controls.
#include "ui/dashboard/timeline_view.h"

#include "app/metrics/recent_timeline.h"
#include "ui/dashboard/timeline_spans.h"
#include "ui/plot/plot_controls.h"
#include "ui/plot/plot_image.h"
#include "ui/plot/plot_style.h"
#include "ui/plot/plot_ticks.h"
#include "ui/shell/dialogs.h"

#include <qcustomplot.h>

#include <QElapsedTimer>
#include <QEvent>
#include <QHBoxLayout>
#include <QMenu>
#include <QMouseEvent>
#include <QScrollBar>
#include <QTimer>
#include <QToolTip>

#include <cmath>
#include <memory>

namespace strata::ui {

namespace {

QString msText(double ms)
{
    const double a = std::abs(ms);
    return QString::number(ms, 'f', a < 10 ? 3 : a < 100 ? 2 : 1);
}

// The followed steps' room on either side, as a fraction of their length.
constexpr double kMargin = 0.02;

} // namespace

TimelineView::TimelineView(const app::MetricsStore& store, QWidget* parent)
    : QWidget(parent), m_store(store), m_plot(new QCustomPlot(this)), m_scroll(new QScrollBar(Qt::Vertical, this))
{
    setObjectName("timelineView");
    m_emptyText = tr("No step timelines yet");
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_scroll);
    m_scroll->setObjectName("timelineRows");
    m_plot->installEventFilter(this); // its resizes (the scroll bar shown or hidden beside it too)
    m_scroll->hide();
    connect(m_scroll, &QScrollBar::valueChanged, this, [this](int value) {
        setTopRow(value);
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    setUpPlot();
    setUpControls();
    applyPalette();
}

void TimelineView::setUpPlot()
{
    QCustomPlot* p = m_plot;
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    p->setNoAntialiasingOnDrag(true);
    // The time zooms and pans; the rows pan (when they do not all fit), never zoom.
    p->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    p->axisRect()->setRangeZoom(Qt::Horizontal);
    p->plotLayout()->insertRow(0);
    p->plotLayout()->insertRow(0);
    m_title = new QCPTextElement(p, tr("Step timeline"), QFont(font().family(), font().pointSize() + 1, QFont::Bold));
    p->plotLayout()->addElement(0, 0, m_title);
    m_legend = new TimelineLegend(p);
    p->plotLayout()->addElement(1, 0, m_legend);
    p->plotLayout()->setRowSpacing(0);
    p->plotLayout()->setRowStretchFactor(0, 0.001);
    p->plotLayout()->setRowStretchFactor(1, 0.001);
    p->legend->setVisible(false);

    p->xAxis->setTicker(compactTicker(p->xAxis, TickUnits::Plain, false, false));
    p->xAxis2->setVisible(true);
    p->xAxis2->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    p->xAxis2->setSubTicks(false);
    p->xAxis2->setTickLength(0, 4);
    p->yAxis->setRangeReversed(true); // the first task on top
    p->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    p->yAxis->setSubTicks(false);
    p->yAxis->setTickLength(0, 0);
    p->yAxis->grid()->setVisible(false);
    m_spans = new TimelineSpans(p->xAxis, p->yAxis);
    m_spans->setTimeline(&m_timeline, 0);

    m_empty = new QCPItemText(p);
    m_empty->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_empty->position->setCoords(0.5, 0.5);
    m_empty->setSelectable(false);

    // The user's pan or zoom of the time: the range moved to is read, and followed no more.
    connect(p->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this](const QCPRange& range) {
        m_plot->xAxis2->setRange(range);
        if (m_settingRange)
            return;
        m_follow = false;
        queueRefresh();
    });
    // A drag's rows: kept within them, as many as the height shows.
    connect(p->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this](const QCPRange& range) {
        if (!m_settingRange)
            setTopRow(range.lower);
    });
    connect(p, &QCustomPlot::mouseDoubleClick, this, &TimelineView::resetView);
    connect(p, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        if (event->buttons() != Qt::NoButton)
            return; // a drag
        const QString text = textAt(event->position().toPoint());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
    });
}

void TimelineView::setUpControls()
{
    m_controls = new PlotControls(this, {.logY = false, .maximise = true, .csv = false});
    connect(m_controls->fit(), &QAction::triggered, this, &TimelineView::resetView);
    connect(m_controls->maximise(), &QAction::toggled, this, &TimelineView::setMaximized);
    connect(m_controls->exportImage(), &QAction::triggered, this, &TimelineView::exportImageAsked);
    m_controls->exportImage()->setEnabled(false); // until there are dialogs to ask where
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
        QToolTip::hideText();
        std::unique_ptr<QMenu> menu(buildMenu());
        menu->exec(m_plot->mapToGlobal(at));
    });
}

QMenu* TimelineView::buildMenu()
{
    return m_controls->buildMenu(this, [this](QMenu& menu) {
        QMenu* steps = menu.addMenu(tr("Steps followed"));
        steps->setObjectName("timelineStepsMenu");
        for (const int n : {1, 2, 4, 8, 16}) {
            QAction* action = steps->addAction(n == 1 ? tr("The last step") : tr("The last %1 steps").arg(n), this, [this, n] { setStepsFollowed(n); });
            action->setCheckable(true);
            action->setChecked(n == m_steps);
        }
    });
}

void TimelineView::setDialogs(Dialogs* dialogs)
{
    m_dialogs = dialogs;
    m_controls->exportImage()->setEnabled(dialogs);
}

bool TimelineView::isMaximized() const
{
    return m_controls->maximise()->isChecked();
}

void TimelineView::setMaximized(bool maximized)
{
    QAction* maximise = m_controls->maximise();
    {
        const QSignalBlocker quiet(maximise);
        maximise->setChecked(maximized);
    }
    maximise->setText(maximized ? tr("Restore") : tr("Maximise"));
    Q_EMIT maximizeToggled(maximized);
}

void TimelineView::exportImageAsked()
{
    const QString title = m_title->text();
    const QString path = m_dialogs ? m_dialogs->saveFile(this, tr("Export %1").arg(title), tr("Step timeline") + ".png",
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

void TimelineView::setStepsFollowed(int steps)
{
    m_steps = std::max(steps, 1);
    resetView();
}

void TimelineView::resetView()
{
    m_follow = true;
    refresh();
}

void TimelineView::setEmptyText(const QString& text)
{
    if (m_emptyText == text)
        return;
    m_emptyText = text;
    if (m_timeline.empty()) {
        m_empty->setText(text);
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

QString TimelineView::emptyText() const
{
    return m_empty->visible() ? m_empty->text() : QString();
}

void TimelineView::queueRefresh()
{
    if (m_refreshQueued)
        return;
    m_refreshQueued = true;
    QTimer::singleShot(0, this, [this] {
        m_refreshQueued = false;
        refresh();
    });
}

void TimelineView::refresh()
{
    QElapsedTimer timer;
    timer.start();
    app::TimelineQuery query{.steps = m_steps};
    if (!m_follow) {
        const QCPRange r = m_plot->xAxis->range();
        query.fromUs = m_originUs + int64_t(std::floor(r.lower * 1000));
        query.toUs = m_originUs + int64_t(std::ceil(r.upper * 1000));
    }
    m_timeline = app::recentTimeline(m_store, query);
    const bool drawn = !m_timeline.empty();
    if (drawn && m_follow) {
        m_originUs = m_timeline.followFromUs;
        const app::TimelineTask& task = m_timeline.tasks[size_t(m_timeline.followTask)];
        m_plot->xAxis->setLabel(tr("ms since step %1 began on %2").arg(m_timeline.followStep).arg(task.task));
        const double length = std::max(double(m_timeline.followToUs - m_timeline.followFromUs) / 1000.0, 0.001);
        m_settingRange = true;
        m_plot->xAxis->setRange(-length * kMargin, length * (1 + kMargin));
        m_settingRange = false;
    }
    if (!drawn) {
        m_plot->xAxis->setLabel(tr("ms"));
        m_follow = true; // a new run's first steps are followed
    }
    m_spans->setTimeline(&m_timeline, m_originUs);
    m_spans->setPalette(palette());
    m_title->setText(m_follow ? (m_steps == 1 ? tr("Step timeline: the last step of every task")
                                            : tr("Step timeline: the last %1 steps of every task").arg(m_steps))
                              : tr("Step timeline (double-click for the latest steps)"));
    m_legend->setPhases(phaseFamilies(m_timeline), palette());
    m_empty->setVisible(!drawn || m_timeline.spans.empty());
    m_empty->setText(drawn ? tr("These steps are no longer kept (each task keeps its last %1): double-click for the latest")
                                 .arg(app::StepTraceRing::kKept)
                           : m_emptyText);
    // The legend's lines set the axes' height: laid out before the rows are fitted to it.
    m_plot->plotLayout()->update(QCPLayoutElement::upPreparation);
    m_plot->plotLayout()->update(QCPLayoutElement::upMargins);
    m_plot->plotLayout()->update(QCPLayoutElement::upLayout);
    fitRows();
    labelRows();
    labelSteps();
    m_plot->replot(QCustomPlot::rpImmediateRefresh);
    m_refreshedSize = m_plot->size();
    m_lastRefreshMs = double(timer.nsecsElapsed()) / 1e6;
}

bool TimelineView::upToDate() const
{
    return !m_refreshQueued && m_refreshedSize == m_plot->size();
}

double TimelineView::rowPx() const
{
    const int rows = int(m_timeline.rows.size());
    const double height = std::max(m_plot->axisRect()->height(), 1);
    return rows > 0 ? std::max(height / rows, double(kMinRowPx)) : height;
}

double TimelineView::rowsFitting() const
{
    const int rows = int(m_timeline.rows.size());
    // At least a row: a plot not laid out yet has no height.
    return rows > 0 ? std::clamp(m_plot->axisRect()->height() / rowPx(), 1.0, double(rows)) : 1;
}

void TimelineView::fitRows()
{
    const int rows = int(m_timeline.rows.size());
    const double shown = rowsFitting();
    const bool scrolls = rows > 0 && shown < rows;
    {
        const QSignalBlocker quiet(m_scroll);
        m_scroll->setRange(0, scrolls ? int(std::ceil(rows - shown)) : 0);
        m_scroll->setPageStep(std::max(int(shown), 1));
    }
    if (m_scroll->isHidden() == scrolls)
        m_scroll->setVisible(scrolls);
    setTopRow(m_topRow);
}

void TimelineView::setTopRow(double top)
{
    const int rows = int(m_timeline.rows.size());
    const double shown = rowsFitting();
    m_topRow = std::clamp(top, 0.0, std::max(rows - shown, 0.0));
    m_settingRange = true;
    m_plot->yAxis->setRange(m_topRow, m_topRow + shown);
    m_settingRange = false;
    {
        const QSignalBlocker quiet(m_scroll);
        m_scroll->setValue(int(std::lround(m_topRow)));
    }
    labelRows();
}

void TimelineView::labelRows()
{
    auto ticker = m_plot->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
    ticker->clear();
    if (m_timeline.empty())
        return;
    const int line = QFontMetrics(m_plot->yAxis->tickLabelFont()).height();
    const double px = rowPx();
    if (px >= line) { // every row: the task on its first lane's, the lane on each
        for (size_t r = 0; r < m_timeline.rows.size(); ++r) {
            const app::TimelineRow& row = m_timeline.rows[r];
            const app::TimelineTask& task = m_timeline.tasks[size_t(row.task)];
            ticker->addTick(double(r) + 0.5, int(r) == task.firstRow ? tr("%1 · %2").arg(task.task, row.lane) : row.lane);
        }
        return;
    }
    // Every task, or every 2nd, 4th... as their height allows, at its rows' middle.
    const double taskPx = px * double(m_timeline.rows.size()) / double(m_timeline.tasks.size());
    size_t every = 1;
    while (every < m_timeline.tasks.size() && double(every) * taskPx < line)
        every *= 2;
    for (size_t t = 0; t < m_timeline.tasks.size(); t += every)
        ticker->addTick(m_timeline.tasks[t].firstRow + m_timeline.tasks[t].rows / 2.0, m_timeline.tasks[t].task);
}

void TimelineView::labelSteps()
{
    auto ticker = m_plot->xAxis2->ticker().dynamicCast<QCPAxisTickerText>();
    ticker->clear();
    if (m_timeline.referenceTask < 0)
        return;
    const QFontMetrics fm(m_plot->xAxis2->tickLabelFont());
    double freeFrom = -1e300; // pixels: where the next label may begin
    for (const app::TimelineStepStart& s : m_timeline.stepStarts) {
        if (s.task != m_timeline.referenceTask)
            continue;
        const QString label = tr("step %1").arg(s.step);
        const double ms = m_spans->toMs(s.t0Us);
        const double at = m_plot->xAxis2->coordToPixel(ms);
        const double half = fm.horizontalAdvance(label) / 2.0 + 6;
        if (at - half < freeFrom)
            continue;
        freeFrom = at + half;
        ticker->addTick(ms, label);
    }
}

QPair<double, double> TimelineView::xRange() const
{
    const QCPRange r = m_plot->xAxis->range();
    return {r.lower, r.upper};
}

double TimelineView::firstRowShown() const
{
    return m_plot->yAxis->range().lower;
}

double TimelineView::rowsShown() const
{
    return m_plot->yAxis->range().size();
}

int TimelineView::rowY(int row) const
{
    const QCPRange r = m_plot->yAxis->range();
    if (row + 0.5 < r.lower || row + 0.5 > r.upper)
        return -1;
    return int(std::lround(m_plot->yAxis->coordToPixel(row + 0.5)));
}

int TimelineView::msX(double ms) const
{
    return int(std::lround(m_plot->xAxis->coordToPixel(ms)));
}

QString TimelineView::textAt(const QPoint& at) const
{
    if (m_timeline.empty() || !m_plot->axisRect()->rect().contains(at))
        return {};
    const int row = int(std::floor(m_plot->yAxis->pixelToCoord(at.y())));
    if (row < 0 || row >= int(m_timeline.rows.size()))
        return {};
    const app::TimelineSpan* span = m_spans->spanAt(m_plot->xAxis->pixelToCoord(at.x()), row);
    if (!span)
        return {};
    const app::TimelineRow& lane = m_timeline.rows[size_t(row)];
    const double startMs = double(span->startUs - span->stepT0Us) / 1000.0;
    const QString start = startMs < 0 ? tr("starts %1 ms before the step").arg(msText(-startMs))
                                      : tr("starts %1 ms into the step").arg(msText(startMs));
    return tr("<b>%1</b> · %2<br>%3, step %4<br>%5, lasts %6 ms")
        .arg(m_timeline.tasks[size_t(lane.task)].task.toHtmlEscaped(), lane.lane.toHtmlEscaped(), span->name.toHtmlEscaped())
        .arg(span->step)
        .arg(start, msText(double(span->durUs) / 1000.0));
}

QStringList TimelineView::legendPhases() const
{
    return m_legend->phases();
}

void TimelineView::applyPalette()
{
    const QPalette pal = palette();
    stylePlot(m_plot, pal);
    m_empty->setColor(pal.color(QPalette::Disabled, QPalette::Text));
    m_controls->updateIcons();
    m_controls->toolbar()->setPalette(pal);
    m_spans->setPalette(pal);
    m_legend->setPhases(m_legend->phases(), pal);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void TimelineView::enterEvent(QEnterEvent* event)
{
    QWidget::enterEvent(event);
    m_controls->placeToolbar();
    m_controls->toolbar()->show();
}

void TimelineView::leaveEvent(QEvent* event)
{
    QWidget::leaveEvent(event);
    m_controls->toolbar()->hide();
    QToolTip::hideText();
}

void TimelineView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    m_controls->placeToolbar();
}

bool TimelineView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_plot && event->type() == QEvent::Resize)
        queueRefresh(); // the rows and labels for the plot's new size
    return QWidget::eventFilter(watched, event);
}

void TimelineView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    refresh();
}

} // namespace strata::ui
