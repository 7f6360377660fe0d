#include "ui/compare/split_bars.h"

#include "ui/plot/plot_image.h"
#include "ui/plot/plot_style.h"
#include "ui/shell/theme.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QHelpEvent>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace strata::ui {

namespace {
struct Part {
    const char* name;
    double app::StepSplit::*ms;
    double lightness; // how far the run's colour is mixed toward the background
};
// Bottom to top.
const Part kParts[] = {{QT_TRANSLATE_NOOP("strata::ui::SplitBars", "compute"), &app::StepSplit::computeMs, 0},
                       {QT_TRANSLATE_NOOP("strata::ui::SplitBars", "gradient reduction"), &app::StepSplit::commMs, 0.45},
                       {QT_TRANSLATE_NOOP("strata::ui::SplitBars", "input wait"), &app::StepSplit::inputMs, 0.75}};
constexpr int kPartCount = int(std::size(kParts));

QColor mixed(const QColor& colour, const QColor& background, double amount)
{
    return QColor::fromRgbF(float(colour.redF() + (background.redF() - colour.redF()) * amount),
                            float(colour.greenF() + (background.greenF() - colour.greenF()) * amount),
                            float(colour.blueF() + (background.blueF() - colour.blueF()) * amount));
}

// As QCustomPlot measures a tick label.
int labelWidth(const QFontMetrics& metrics, const QString& text)
{
    return metrics.boundingRect(0, 0, 0, 0, Qt::TextDontClip | Qt::AlignHCenter, text).width();
}
} // namespace

SplitBars::SplitBars(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(
        0, 0, new QCPTextElement(m_plot, tr("Step time split (mean)"), QFont(font().family(), font().pointSize() + 1, QFont::Bold)));
    m_plot->yAxis->setLabel(tr("ms per step")); // short: the plot may be short
    m_plot->legend->setVisible(true);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(kPartCount);
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->addElement(2, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
    // The parts as the legend shows them, in neutral shades; the runs' bars follow them.
    for (const Part& part : kParts) {
        auto* legendOnly = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        legendOnly->setName(tr(part.name));
    }
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    m_plot->installEventFilter(this);
    // A new width (the window resized, the splitter dragged) may need the names fitted again.
    connect(m_plot, &QCustomPlot::afterReplot, this, &SplitBars::fitLabels);
    applyPalette();
}

void SplitBars::applyPalette()
{
    stylePlot(m_plot, palette());
    const QColor text = palette().color(QPalette::Text), base = palette().color(QPalette::Base);
    for (int part = 0; part < kPartCount; ++part) {
        auto* bars = qobject_cast<QCPBars*>(m_plot->plottable(part));
        bars->setBrush(mixed(text, base, 0.25 + kParts[part].lightness * 0.75));
        bars->setPen(QPen(text));
    }
    showBars();
}

void SplitBars::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void SplitBars::setRuns(const std::vector<app::RunSummary>& runs, const QList<QColor>& colours)
{
    m_runs = runs;
    m_colours = colours;
    m_shownLabels.clear();
    showBars();
}

void SplitBars::showBars()
{
    // Every run its own stack of bars, so that each takes its run's colour.
    while (m_plot->plottableCount() > kPartCount)
        m_plot->removePlottable(m_plot->plottableCount() - 1);
    const QColor base = palette().color(QPalette::Base);
    double top = 0;
    for (size_t run = 0; run < m_runs.size(); ++run) {
        if (!m_runs[run].split)
            continue;
        const app::StepSplit& split = *m_runs[run].split;
        const QColor colour = m_colours.value(qsizetype(run), palette().color(QPalette::Text));
        QCPBars* below = nullptr;
        for (const Part& part : kParts) {
            auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
            bars->setName(QStringLiteral("%1: %2").arg(m_runs[run].label, tr(part.name)));
            bars->removeFromLegend();
            bars->setWidth(0.6);
            bars->setBrush(mixed(colour, base, part.lightness));
            bars->setPen(QPen(colour.darker(115)));
            bars->addData(double(run + 1), split.*part.ms);
            if (below)
                bars->moveAbove(below);
            below = bars;
        }
        top = std::max(top, split.computeMs + split.commMs + split.inputMs);
    }
    m_plot->xAxis->setRange(0.4, double(m_runs.size()) + 0.6);
    m_plot->yAxis->setRange(0, top > 0 ? top * 1.1 : 1);
    m_shownLabels.clear(); // fitted again for these runs
    fitLabels();
    m_plot->replot();
}

void SplitBars::fitLabels()
{
    QCPAxis* axis = m_plot->xAxis;
    const QFontMetrics metrics(axis->tickLabelFont());
    const double slot = std::abs(axis->coordToPixel(2) - axis->coordToPixel(1));
    const int line = metrics.height();
    const double gap = line / 2.0;
    int widest = 0;
    for (const app::RunSummary& run : m_runs)
        widest = std::max(widest, labelWidth(metrics, run.label));

    // Level if they fit, or fit with a little cut from their middles; else turned, at most
    // 40% of the plot's height tall.
    double rotation = 0;
    double room = slot - gap; // the width a name may take
    int every = 1;
    const double tallest = std::max(m_plot->height() * 0.4, 4.0 * line);
    if (room < widest * 0.6) {
        const double sin45 = std::sqrt(0.5);
        if (slot * sin45 >= line + 2) {
            rotation = -45;
            room = tallest / sin45 - line;
        } else {
            rotation = -90;
            room = tallest;
            every = int(std::ceil((line + 2) / std::max(slot, 1.0)));
        }
    }
    QStringList labels;
    for (size_t run = 0; run < m_runs.size(); ++run) {
        const QString& label = m_runs[run].label;
        if (run % size_t(every) != 0) {
            labels << QString();
            continue;
        }
        // elidedText measures by advance, QCustomPlot by bounding box: narrower until it fits.
        QString text = label;
        for (int width = int(room); width > 0 && labelWidth(metrics, text) > room; width -= 2)
            text = metrics.elidedText(label, Qt::ElideMiddle, width);
        labels << text;
    }
    // As many values up the side as leave two lines between them, in a short plot too.
    const int yTicks = std::clamp(m_plot->axisRect()->height() / (2 * line), 2, 6);
    if (labels == m_shownLabels && qFuzzyCompare(axis->tickLabelRotation() + 360, rotation + 360)
        && m_plot->yAxis->ticker()->tickCount() == yTicks)
        return;
    m_plot->yAxis->ticker()->setTickCount(yTicks);
    m_shownLabels = labels;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int run = 0; run < labels.size(); ++run)
        ticker->addTick(double(run + 1), labels[run]);
    axis->setTicker(ticker);
    axis->setTickLabelRotation(rotation);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

bool SplitBars::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_plot && event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const long run = std::lround(m_plot->xAxis->pixelToCoord(help->pos().x())) - 1;
        if (run < 0 || size_t(run) >= m_runs.size() || !m_plot->axisRect()->rect().adjusted(0, 0, 0, 200).contains(help->pos())) {
            QToolTip::hideText();
            return true;
        }
        const app::RunSummary& r = m_runs[size_t(run)];
        QString text = QStringLiteral("<b>%1</b>").arg(r.label.toHtmlEscaped());
        if (r.split)
            for (const Part& part : kParts)
                text += QStringLiteral("<br>%1: %2 ms").arg(tr(part.name)).arg((*r.split).*part.ms, 0, 'f', 2);
        else
            text += QStringLiteral("<br>") + tr("no step times");
        QToolTip::showText(help->globalPos(), text, m_plot);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

bool SplitBars::exportImage(const QString& path, QString* error) const
{
    return savePlotImage(m_plot, path, tr("Step time split"), error);
}

} // namespace strata::ui
