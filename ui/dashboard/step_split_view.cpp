#include "ui/dashboard/step_split_view.h"

#include "ui/shell/theme.h"

#include <QPainter>

#include <algorithm>

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
    update();
}

QSize StepSplitView::sizeHint() const
{
    return {320, 200};
}

QSize StepSplitView::minimumSizeHint() const
{
    return {220, fontMetrics().height() * 4};
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
    // The legend: a swatch and a name per part.
    int x = margin;
    for (int i = 0; i < parts.size(); ++i) {
        p.fillRect(QRect(x, y + line / 4, line / 2, line / 2), theme::series(i, pal));
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QPoint(x + line / 2 + 3, y + fm.ascent()), parts[i]);
        x += line / 2 + 3 + fm.horizontalAdvance(parts[i]) + 10;
    }
    y += line + 6;
    double longest = 0;
    for (const app::TaskStepSplit& s : m_splits)
        longest = std::max(longest, s.split.stepMs);
    const int barWidth = width() - 2 * margin;
    const int shown = std::min<int>(int(m_splits.size()), kTasksShown);
    for (int t = 0; t < shown; ++t) {
        const app::StepSplit& s = m_splits[t].split;
        const QString text = tr("%1  %2 ms/step: %3 · %4 · %5 · %6")
                                 .arg(m_splits[t].task)
                                 .arg(s.stepMs, 0, 'f', 2)
                                 .arg(s.computeMs, 0, 'f', 2)
                                 .arg(s.commMs, 0, 'f', 2)
                                 .arg(s.inputMs, 0, 'f', 2)
                                 .arg(s.otherMs(), 0, 'f', 2);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(margin, y, barWidth, line), Qt::AlignLeft, fm.elidedText(text, Qt::ElideRight, barWidth));
        y += line + 1;
        const double values[] = {s.computeMs, s.commMs, s.inputMs, s.otherMs()};
        double at = margin;
        for (int i = 0; i < 4; ++i) {
            const double w = longest > 0 ? values[i] / longest * barWidth : 0;
            p.fillRect(QRectF(at, y, w, line * 0.8), theme::series(i, pal));
            at += w;
        }
        y += int(line * 0.8) + 6;
        if (y > height() - line)
            break;
    }
    if (m_splits.size() > shown) {
        p.setPen(pal.color(QPalette::Disabled, QPalette::Text));
        p.drawText(QPoint(margin, std::min(y + fm.ascent(), height() - 2)), tr("and %n more task(s)", nullptr, int(m_splits.size()) - shown));
    }
}

} // namespace strata::ui
