// DashboardPage's plots: built from the panel table (dashboard_panels), their menus' x axis
// and smoothing, the loss's and accuracy's smoothing controls, their titles.
#include "ui/dashboard/dashboard_page.h"

#include "ui/dashboard/dashboard_panels.h"
#include "ui/plot/plot_link.h"
#include "ui/plot/series_plot.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QMenu>
#include <QSpinBox>

namespace strata::ui {

namespace {

QString smoothingText(const app::Smoothing& s)
{
    switch (s.kind) {
    case app::Smoothing::Kind::Ema: return DashboardPage::tr("EMA %1").arg(s.weight);
    case app::Smoothing::Kind::MovingAverage: return DashboardPage::tr("mean of %n point(s)", nullptr, s.window);
    case app::Smoothing::Kind::None: break;
    }
    return {};
}

QString translated(const char* text) { return QCoreApplication::translate("strata::ui::DashboardPage", text); }

} // namespace

// Step windows' rates swing with whatever else the machine does; TensorBoard's EMA with a
// weight of 0.8 follows a change within a few windows and hides single-window dips.
const app::Smoothing DashboardPage::kThroughputSmoothing{app::Smoothing::Kind::Ema, 0.8, 10};

void DashboardPage::buildPlots(Dialogs* dialogs)
{
    for (const DashboardPanel& panel : dashboardPanels()) {
        Q_ASSERT(int(m_plots.size()) == panel.kind); // the table is in PlotKind order
        m_sources.push_back(panel.makeSource(m_store));
        auto* plot = new SeriesPlot(this);
        plot->setObjectName(panel.objectName);
        plot->setTitle(translated(panel.title));
        plot->setAxisLabels(translated(panel.xLabel), translated(panel.yLabel));
        plot->setSource(m_sources.back().get());
        plot->setDialogs(dialogs);
        plot->setXIntegral(panel.stepAxis);
        plot->setYUnits(panel.units);
        plot->setYLogarithmic(panel.logY);
        if (panel.fixedYHigh > panel.fixedYLow)
            plot->setFixedYRange(panel.fixedYLow, panel.fixedYHigh);
        const bool onTop = panel.place == DashboardPanel::Place::Main || panel.place == DashboardPanel::Place::Strip;
        // Small enough that the page fits a 1280x720 window without scrolling.
        plot->setMinimumSize(panel.place == DashboardPanel::Place::Strip ? 150 : 240, 140);
        plot->setMaximizable(onTop);
        connect(plot, &SeriesPlot::maximizeToggled, this, [this, plot](bool on) { showMaximized(plot, on); });
        connect(plot, &SeriesPlot::message, this, &DashboardPage::message);
        if (panel.stepAxis)
            m_link->add(plot);
        m_plots.push_back(plot);
    }
    setSmoothing(ThroughputPlot, kThroughputSmoothing);
    for (const DashboardPanel& panel : dashboardPanels())
        if (panel.stepAxis)
            m_plots[panel.kind]->setMenuExtension([this, kind = panel.kind](QMenu& menu) { extendMenu(kind, menu); });
}

void DashboardPage::extendMenu(PlotKind kind, QMenu& menu)
{
    // Every step plot's x axis at once (they are linked): TensorBoard's step, relative and wall.
    QMenu* axis = menu.addMenu(tr("X axis"));
    axis->setObjectName("xAxisMenu");
    const QList<std::pair<QString, app::XAxis>> axes{{tr("Step"), app::XAxis::Step},
                                                     {tr("Relative time"), app::XAxis::RelativeSeconds},
                                                     {tr("Wall time"), app::XAxis::WallTime}};
    for (const auto& [label, choice] : axes) {
        QAction* action = axis->addAction(label, this, [this, x = choice] { setXAxis(x); });
        action->setCheckable(true);
        action->setChecked(m_sources[kind]->xAxis() == choice);
    }
    // Many workers' lines as their band, or every line.
    if (m_sources[kind]->hasManyLines()) {
        QAction* band = menu.addAction(tr("Draw as a band (median, min–max)"), this,
                                       [this, kind](bool on) { setBands(kind, on); });
        band->setCheckable(true);
        band->setChecked(m_sources[kind]->bands());
        band->setToolTip(tr("Off: every worker's line"));
    }
    if (kind != ThroughputPlot)
        return;
    QMenu* smoothing = menu.addMenu(tr("Smoothing"));
    const QList<std::pair<QString, app::Smoothing>> choices{
        {tr("None"), {}},
        {tr("EMA 0.6"), {app::Smoothing::Kind::Ema, 0.6, 10}},
        {tr("EMA 0.8 (default)"), kThroughputSmoothing},
        {tr("EMA 0.95"), {app::Smoothing::Kind::Ema, 0.95, 10}},
        {tr("Mean of 10 points"), {app::Smoothing::Kind::MovingAverage, 0.6, 10}}};
    for (const auto& [label, choice] : choices) {
        QAction* action = smoothing->addAction(label, this, [this, s = choice] { setSmoothing(ThroughputPlot, s); });
        action->setCheckable(true);
        action->setChecked(m_sources[ThroughputPlot]->smoothing() == choice);
    }
}

void DashboardPage::setXAxis(app::XAxis axis)
{
    for (const DashboardPanel& panel : dashboardPanels())
        if (panel.stepAxis) {
            m_sources[panel.kind]->setXAxis(axis);
            m_plots[panel.kind]->setXAxis(axis);
        }
}

app::XAxis DashboardPage::xAxis() const
{
    return m_sources[LossPlot]->xAxis();
}

QWidget* DashboardPage::makeSmoothingControls()
{
    auto* box = new QWidget(this);
    m_smoothingKind = new QComboBox(box);
    m_smoothingKind->setObjectName("smoothingKind");
    m_smoothingKind->addItem(tr("No smoothing"));
    m_smoothingKind->addItem(tr("EMA (debiased)"));
    m_smoothingKind->addItem(tr("Moving average"));
    m_smoothingKind->setToolTip(tr("Smoothing of the loss and accuracy lines, computed over every point, the raw "
                                   "values drawn faintly beneath (the throughput's is in its plot's menu)"));
    m_smoothingWeight = new QDoubleSpinBox(box);
    m_smoothingWeight->setObjectName("smoothingWeight");
    m_smoothingWeight->setRange(0, 0.999);
    m_smoothingWeight->setDecimals(3);
    m_smoothingWeight->setSingleStep(0.05);
    m_smoothingWeight->setValue(0.6);
    m_smoothingWindow = new QSpinBox(box);
    m_smoothingWindow->setObjectName("smoothingWindow");
    m_smoothingWindow->setRange(1, 100000);
    m_smoothingWindow->setValue(10);
    m_smoothingWindow->setSuffix(tr(" points"));
    m_smoothingKind->setCurrentIndex(1); // TensorBoard's default (EMA 0.6): every step's loss is noisy
    connect(m_smoothingKind, &QComboBox::currentIndexChanged, this, &DashboardPage::applySmoothing);
    connect(m_smoothingWeight, &QDoubleSpinBox::valueChanged, this, &DashboardPage::applySmoothing);
    connect(m_smoothingWindow, &QSpinBox::valueChanged, this, &DashboardPage::applySmoothing);
    auto* layout = new QHBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_smoothingKind);
    layout->addWidget(m_smoothingWeight);
    layout->addWidget(m_smoothingWindow);
    applySmoothing();
    return box;
}

void DashboardPage::applySmoothing()
{
    app::Smoothing s;
    s.kind = static_cast<app::Smoothing::Kind>(m_smoothingKind->currentIndex());
    s.weight = m_smoothingWeight->value();
    s.window = m_smoothingWindow->value();
    m_smoothingWeight->setVisible(s.kind == app::Smoothing::Kind::Ema);
    m_smoothingWindow->setVisible(s.kind == app::Smoothing::Kind::MovingAverage);
    for (PlotKind kind : {LossPlot, AccuracyPlot}) {
        m_sources[kind]->setSmoothing(s);
        m_plots[kind]->refresh();
    }
}

void DashboardPage::setBands(PlotKind kind, bool shown)
{
    m_sources[kind]->setBands(shown);
    m_plots[kind]->refresh();
}

void DashboardPage::setSmoothing(PlotKind kind, const app::Smoothing& smoothing)
{
    m_sources[kind]->setSmoothing(smoothing);
    updateTitle(kind);
    m_plots[kind]->refresh();
}

void DashboardPage::updateTitle(PlotKind kind)
{
    const QString title = translated(dashboardPanels()[kind].title);
    const QString smoothing = kind == ThroughputPlot ? smoothingText(m_sources[kind]->smoothing()) : QString();
    m_plots[kind]->setTitle(smoothing.isEmpty() ? title : tr("%1 (%2)").arg(title, smoothing));
}

} // namespace strata::ui
