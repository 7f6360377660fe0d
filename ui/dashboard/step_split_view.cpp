#include "ui/dashboard/step_split_view.h"

#include "ui/shell/theme.h"

#include <QPainter>

#include <algorithm>
#include <array>

namespace strata::ui {

StepSplitView::StepSplitView(QWidget* parent) : QWidget(parent)
{
    setObjectName("stepSplit");
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void StepSplitView::setSplits(const QList<app::TaskStepSplit>& splits)
{
    if (splits.size() != m_splits.size())
        updateGeometry();
    m_splits = splits;
    QStringList tip;
    for (const app::TaskStepSplit& t : splits)
        tip << tr("%1: %2 ms per step: compute %3, gradient reduction %4, input wait %5, other %6")
                   .arg(t.task)
                   .arg(t.split.stepMs, 0, 'f', 3)
                   .arg(t.split.computeMs, 0, 'f', 3)
                   .arg(t.split.commMs, 0, 'f', 3)
                   .arg(t.split.inputMs, 0, 'f', 3)
                   .arg(t.split.otherMs(), 0, 'f', 3);
    setToolTip(tip.join('\n'));
    update();
}

QSize StepSplitView::sizeHint() const
{
    return {320, 200};
}

QSize StepSplitView::minimumSizeHint() const
{
    return {150, fontMetrics().height() * 4};
}

void StepSplitView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    const QFontMetrics fm = fontMetrics();
    const int line = fm.height();
    const int margin = 8;
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(pal.color(QPalette::Text));
    p.drawText(QRect(0, margin / 2, width(), line), Qt::AlignHCenter, tr("Step time, latest windows"));
    p.setFont(font());
    int y = margin / 2 + line + 4;
    if (m_splits.isEmpty()) {
        p.setPen(pal.color(QPalette::Disabled, QPalette::Text));
        p.drawText(rect().adjusted(0, y, 0, 0), Qt::AlignCenter, tr("No data yet"));
        return;
    }
    const QStringList parts{tr("compute"), tr("gradient reduction"), tr("input wait"), tr("other")};
    // The legend: a swatch and a name per part, with its ms when one task computes (the usual
    // case); several tasks' figures are in each bar's line and tooltip.
    const auto values = [](const app::StepSplit& s) { return std::array{s.computeMs, s.commMs, s.inputMs, s.otherMs()}; };
    int x = margin;
    for (int i = 0; i < parts.size(); ++i) {
        const QString label = m_splits.size() == 1 ? tr("%1 %2 ms").arg(parts[i]).arg(values(m_splits[0].split)[size_t(i)], 0, 'f', 2)
                                                  : parts[i];
        const int advance = line / 2 + 3 + fm.horizontalAdvance(label) + 10;
        if (x + advance > width() - margin && x > margin) { // wrap onto a second line
            x = margin;
            y += line;
        }
        p.fillRect(QRect(x, y + line / 4, line / 2, line / 2), theme::series(i, pal));
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QPoint(x + line / 2 + 3, y + fm.ascent()), label);
        x += advance;
    }
    y += line + 6;
    double longest = 0;
    for (const app::TaskStepSplit& s : m_splits)
        longest = std::max(longest, s.split.stepMs);
    const int barWidth = width() - 2 * margin;
    // More tasks than fit: the slowest by their own time, the ones worth a look.
    const QList<app::TaskStepSplit> bars = m_splits.size() > kTasksShown ? app::slowestOwn(m_splits, kTasksShown) : m_splits;
    // A bar is its line of figures and the bar beneath; the line saying how many more is kept
    // room for, below the last bar that fits.
    const int barHeight = line + 1 + int(line * 0.8) + 6;
    int shown = 0;
    for (const app::TaskStepSplit& bar : bars) {
        if (shown > 0 && y + barHeight + (shown + 1 < m_splits.size() ? line : 0) > height())
            break;
        ++shown;
        const app::StepSplit& s = bar.split;
        const QString text = m_splits.size() == 1
                                 ? tr("%1: %2 ms per step").arg(bar.task).arg(s.stepMs, 0, 'f', 2)
                                 : tr("%1: %2 ms: %3 · %4 · %5 · %6")
                                       .arg(bar.task)
                                       .arg(s.stepMs, 0, 'f', 2)
                                       .arg(s.computeMs, 0, 'f', 2)
                                       .arg(s.commMs, 0, 'f', 2)
                                       .arg(s.inputMs, 0, 'f', 2)
                                       .arg(s.otherMs(), 0, 'f', 2);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(margin, y, barWidth, line), Qt::AlignLeft, fm.elidedText(text, Qt::ElideRight, barWidth));
        y += line + 1;
        const auto parts4 = values(s);
        double at = margin;
        for (size_t i = 0; i < parts4.size(); ++i) {
            const double w = longest > 0 ? parts4[i] / longest * barWidth : 0;
            p.fillRect(QRectF(at, y, w, line * 0.8), theme::series(int(i), pal));
            at += w;
        }
        y += int(line * 0.8) + 6;
    }
    if (m_splits.size() > shown) {
        p.setPen(pal.color(QPalette::Disabled, QPalette::Text));
        p.drawText(QRect(margin, y, barWidth, line), Qt::AlignLeft,
                   fm.elidedText(bars.size() < m_splits.size()
                                     ? tr("the slowest by their own time; %n more task(s)", nullptr, int(m_splits.size()) - shown)
                                     : tr("and %n more task(s)", nullptr, int(m_splits.size()) - shown),
                                 Qt::ElideRight, barWidth));
    }
}

} // namespace strata::ui
