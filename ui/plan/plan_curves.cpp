#include "ui/plan/plan_curves.h"

#include "ui/plot/plot_style.h"
#include "ui/shell/theme.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace strata::ui {

using namespace app::plan;

namespace {

QCustomPlot* newPlot(const QString& title, const QString& yLabel, QWidget* parent)
{
    auto* plot = new QCustomPlot(parent);
    plot->setMinimumHeight(150);
    plot->plotLayout()->insertRow(0);
    QFont font = parent->font();
    font.setBold(true);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title, font));
    plot->xAxis->setLabel(QObject::tr("workers (log2)"));
    plot->yAxis->setLabel(yLabel);
    plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
    return plot;
}

// The throughput's axis: samples/s over orders of magnitude.
void useLogY(QCustomPlot* plot)
{
    plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    plot->yAxis->setNumberFormat("gb");
}

} // namespace

bool probedAt(const ScalingPlan& plan, const Prediction& prediction)
{
    return prediction.workers == 1 || (prediction.workers == plan.probe.collective.ranks &&
                                       (prediction.strategy == Strategy::MultiWorkerMirrored ||
                                        prediction.strategy == Strategy::ParameterServer) &&
                                       !prediction.extrapolated);
}

PlanCurves::PlanCurves(QWidget* parent)
    : QWidget(parent), m_throughput(newPlot(tr("Predicted throughput"), tr("samples/s"), this)),
      m_efficiency(newPlot(tr("Scaling efficiency"), tr("efficiency (%)"), this))
{
    m_throughput->setObjectName("planThroughputPlot");
    m_efficiency->setObjectName("planEfficiencyPlot");
    useLogY(m_throughput);
    // One legend for both, in a row of its own under the lower plot: over the axes it would hide
    // the curves' peaks, and the lines are the same strategies in the same colours.
    m_throughput->legend->setVisible(false);
    QCPLegend* legend = m_efficiency->legend;
    legend->setVisible(true);
    legend->setBorderPen(Qt::NoPen);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(2); // two columns: three cut the longer names at 1280x720
    m_efficiency->axisRect()->insetLayout()->take(legend);
    m_efficiency->plotLayout()->addElement(2, 0, legend);
    m_efficiency->plotLayout()->setRowStretchFactor(2, 0.001);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    // The lower plot holds the legend too.
    layout->addWidget(m_throughput, 5);
    layout->addWidget(m_efficiency, 7);
    draw();
}

void PlanCurves::setPlan(const ScalingPlan& plan)
{
    m_plan = plan;
    draw();
}

void PlanCurves::draw()
{
    const QPalette& pal = palette();
    for (QCustomPlot* plot : {m_throughput, m_efficiency}) {
        plot->clearGraphs();
        stylePlot(plot, pal);
    }
    if (!m_plan) {
        for (QCustomPlot* plot : {m_throughput, m_efficiency})
            plot->replot();
        return;
    }
    // Strategy by strategy, in the plan's order; the worker counts for the axis's ticks.
    std::vector<Strategy> order;
    std::map<Strategy, std::vector<const Prediction*>> lines;
    std::set<int> counts;
    double most = 0, least = std::numeric_limits<double>::max();
    for (const Prediction& p : m_plan->predictions) {
        if (!lines.count(p.strategy))
            order.push_back(p.strategy);
        lines[p.strategy].push_back(&p);
        counts.insert(p.workers);
        most = std::max(most, p.samplesPerSecond);
        if (p.samplesPerSecond > 0)
            least = std::min(least, p.samplesPerSecond);
    }
    for (size_t i = 0; i < order.size(); ++i) {
        const QColor colour = theme::series(int(i), pal);
        const auto& points = lines[order[i]];
        for (QCustomPlot* plot : {m_throughput, m_efficiency}) {
            const bool throughput = plot == m_throughput;
            QCPGraph* line = plot->addGraph();
            line->setName(strategyName(order[i]));
            line->setPen(QPen(colour, 2));
            line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, pal.color(QPalette::Base), 7));
            QCPGraph* probed = plot->addGraph();
            probed->setLineStyle(QCPGraph::lsNone);
            probed->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 10));
            probed->removeFromLegend();
            for (const Prediction* p : points) {
                const double y = throughput ? p->samplesPerSecond : p->efficiency * 100;
                line->addData(p->workers, y);
                if (probedAt(*m_plan, *p))
                    probed->addData(p->workers, y);
            }
        }
    }
    // The legend's last entry says what the filled points are.
    QCPGraph* key = m_efficiency->addGraph();
    key->setName(tr("probed"));
    key->setLineStyle(QCPGraph::lsNone);
    const QColor text = pal.color(QPalette::Text);
    key->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, text, text, 10));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int n : counts)
        ticker->addTick(n, QString::number(n));
    const double first = counts.empty() ? 1 : *counts.begin(), last = counts.empty() ? 2 : *counts.rbegin();
    for (QCustomPlot* plot : {m_throughput, m_efficiency}) {
        plot->xAxis->setTicker(ticker);
        plot->xAxis->setRange(first / 1.3, last * 1.3);
    }
    // Log y: strategies apart by two orders of magnitude (OneDevice against ParameterServer on a
    // small model) would otherwise flatten all but the fastest line.
    if (most > 0)
        m_throughput->yAxis->setRange(least / 1.6, most * 1.6);
    double topEfficiency = 100;
    for (const Prediction& p : m_plan->predictions)
        topEfficiency = std::max(topEfficiency, p.efficiency * 100);
    m_efficiency->yAxis->setRange(0, topEfficiency * 1.1);
    for (QCustomPlot* plot : {m_throughput, m_efficiency})
        plot->replot();
}

void PlanCurves::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        draw();
}

} // namespace strata::ui
