#include "ui/history/split_bars.h"

#include "ui/plot/plot_image.h"
#include "ui/plot/plot_style.h"
#include "ui/shell/theme.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QVBoxLayout>

namespace strata::ui {

namespace {
struct Part {
    const char* name;
    double app::StepSplit::*ms;
};
// Bottom to top, in the line plots' first colours (the step time plot's lines).
const Part kParts[] = {{QT_TRANSLATE_NOOP("strata::ui::SplitBars", "compute"), &app::StepSplit::computeMs},
                       {QT_TRANSLATE_NOOP("strata::ui::SplitBars", "gradient reduction"), &app::StepSplit::commMs},
                       {QT_TRANSLATE_NOOP("strata::ui::SplitBars", "input wait"), &app::StepSplit::inputMs}};
} // namespace

SplitBars::SplitBars(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(
        0, 0, new QCPTextElement(m_plot, tr("Step time split"), QFont(font().family(), font().pointSize() + 1, QFont::Bold)));
    m_plot->yAxis->setLabel(tr("ms per step (mean)"));
    m_plot->legend->setVisible(true);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(3);
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->addElement(2, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
    QCPBars* below = nullptr;
    for (const Part& part : kParts) {
        auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(tr(part.name));
        bars->setWidth(0.6);
        if (below)
            bars->moveAbove(below);
        below = bars;
    }
    applyPalette();
}

void SplitBars::applyPalette()
{
    stylePlot(m_plot, palette());
    for (int part = 0; part < int(std::size(kParts)); ++part) {
        const QColor colour = theme::series(part, palette());
        auto* bars = qobject_cast<QCPBars*>(m_plot->plottable(part));
        bars->setBrush(colour);
        bars->setPen(QPen(colour.darker(130)));
    }
    m_plot->replot();
}

void SplitBars::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void SplitBars::setRuns(const std::vector<app::RunSummary>& runs)
{
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double top = 0;
    for (int part = 0; part < int(std::size(kParts)); ++part) {
        QVector<double> keys, values;
        for (size_t run = 0; run < runs.size(); ++run) {
            if (!runs[run].split)
                continue;
            keys << double(run + 1);
            values << (*runs[run].split).*kParts[part].ms;
        }
        qobject_cast<QCPBars*>(m_plot->plottable(part))->setData(keys, values, true);
    }
    for (size_t run = 0; run < runs.size(); ++run) {
        ticker->addTick(double(run + 1), runs[run].label);
        if (runs[run].split)
            top = std::max(top, runs[run].split->computeMs + runs[run].split->commMs + runs[run].split->inputMs);
    }
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(0.4, double(runs.size()) + 0.6);
    m_plot->yAxis->setRange(0, top > 0 ? top * 1.1 : 1);
    m_plot->replot();
}

bool SplitBars::exportImage(const QString& path, QString* error) const
{
    return savePlotImage(m_plot, path, tr("Step time split"), error);
}

} // namespace strata::ui
