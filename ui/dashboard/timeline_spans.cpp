#include "ui/dashboard/timeline_spans.h"

#include "ui/shell/theme.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace strata::ui {

namespace {

// The phases in the order a step runs them (the legend's order), with their theme colour
// (ui/shell/theme.h's series): the step split's compute blue, reduction orange, input green;
// the wait for the reduction grey (idle), so that it parts from the reduction itself.
struct Phase {
    const char* family;
    int colour;
};
constexpr std::array kPhases{Phase{"step", -1},      Phase{"input", 2},     Phase{"forward", 0},
                             Phase{"backward", 9},   Phase{"pull", 8},      Phase{"wait", 7},
                             Phase{"bucket", 1},     Phase{"all-reduce", 1}, Phase{"push", 5},
                             Phase{"optimizer", 3},  Phase{"checkpoint", 4}, Phase{"evaluation", 6}};

int phaseIndex(const QString& family)
{
    for (size_t i = 0; i < kPhases.size(); ++i)
        if (family == QLatin1String(kPhases[i].family))
            return int(i);
    return int(kPhases.size());
}

bool isStepBox(const app::TimelineSpan& s)
{
    return s.depth == 0 && s.name == QLatin1String("step");
}

QColor faint(QColor c, int alpha)
{
    c.setAlpha(alpha);
    return c;
}

// Black or white, whichever reads on `background`.
QColor textOn(const QColor& background)
{
    return background.lightnessF() > 0.55 ? QColor(Qt::black) : QColor(Qt::white);
}

QString jobOf(const QString& task)
{
    return task.section(QLatin1Char(':'), 0, 0);
}

} // namespace

QString phaseFamily(const QString& name)
{
    return name.startsWith(QLatin1String("bucket ")) ? QStringLiteral("bucket") : name;
}

QColor phaseColour(const QString& name, const QPalette& palette)
{
    const QString family = phaseFamily(name);
    const int index = phaseIndex(family);
    if (index == int(kPhases.size())) // a phase of its own: the wait's grey, darker
        return theme::series(7, palette).darker(140);
    if (kPhases[size_t(index)].colour < 0)
        return palette.color(QPalette::Text);
    QColor colour = theme::series(kPhases[size_t(index)].colour, palette);
    if (family != name && name.section(QLatin1Char(' '), 1).toInt() % 2 == 1)
        colour = colour.lighter(125);
    return colour;
}

QStringList phaseFamilies(const app::Timeline& timeline)
{
    QStringList families;
    for (const app::TimelineSpan& s : timeline.spans) {
        const QString family = phaseFamily(s.name);
        if (!families.contains(family))
            families << family;
    }
    std::stable_sort(families.begin(), families.end(),
                     [](const QString& a, const QString& b) { return phaseIndex(a) < phaseIndex(b); });
    return families;
}

TimelineSpans::TimelineSpans(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis)
{
    setSelectable(QCP::stNone);
    setAntialiased(false);
}

void TimelineSpans::setTimeline(const app::Timeline* timeline, int64_t originUs)
{
    m_timeline = timeline;
    m_originUs = originUs;
}

const app::TimelineSpan* TimelineSpans::spanAt(double ms, int row) const
{
    if (!m_timeline)
        return nullptr;
    const std::vector<app::TimelineSpan>& spans = m_timeline->spans;
    const auto first = std::lower_bound(spans.begin(), spans.end(), row,
                                        [](const app::TimelineSpan& s, int r) { return s.row < r; });
    const double us = double(m_originUs) + ms * 1000.0;
    const app::TimelineSpan* found = nullptr;
    for (auto it = first; it != spans.end() && it->row == row && double(it->startUs) <= us; ++it)
        if (us <= double(it->startUs + it->durUs) && (!found || it->depth >= found->depth))
            found = &*it;
    return found;
}

double TimelineSpans::selectTest(const QPointF&, bool, QVariant*) const
{
    return -1; // hovering names a span (TimelineView), nothing is selected
}

QCPRange TimelineSpans::getKeyRange(bool& foundRange, QCP::SignDomain) const
{
    foundRange = m_timeline && !m_timeline->empty();
    return foundRange ? QCPRange(toMs(m_timeline->keptFromUs), toMs(m_timeline->keptToUs)) : QCPRange();
}

QCPRange TimelineSpans::getValueRange(bool& foundRange, QCP::SignDomain, const QCPRange&) const
{
    foundRange = m_timeline && !m_timeline->empty();
    return foundRange ? QCPRange(0, double(m_timeline->rows.size())) : QCPRange();
}

void TimelineSpans::draw(QCPPainter* painter)
{
    if (!m_timeline || m_timeline->empty())
        return;
    QCPAxis* x = keyAxis();
    QCPAxis* y = valueAxis();
    const QRectF area = clipRect();
    applyDefaultAntialiasingHint(painter);
    painter->setFont(mParentPlot->font());
    drawSeparators(painter, area);

    const double rowPx = std::abs(y->coordToPixel(1) - y->coordToPixel(0));
    const double depthInset = std::max(1.0, rowPx * 0.12);
    const QFontMetrics fm(painter->font());
    const bool named = rowPx >= fm.height();
    const int lastRow = int(std::ceil(y->range().upper));
    const auto first = std::lower_bound(m_timeline->spans.begin(), m_timeline->spans.end(), int(std::floor(y->range().lower)),
                                        [](const app::TimelineSpan& s, int r) { return s.row < r; });
    const QColor text = m_palette.color(QPalette::Text);
    for (auto it = first; it != m_timeline->spans.end() && it->row <= lastRow; ++it) {
        const app::TimelineSpan& s = *it;
        const double x0 = x->coordToPixel(toMs(s.startUs)), x1 = x->coordToPixel(toMs(s.startUs + s.durUs));
        if (x1 < area.left() || x0 > area.right())
            continue;
        const double top = std::min(y->coordToPixel(s.row), y->coordToPixel(s.row + 1));
        const double inset = 1 + std::min(s.depth, 3) * depthInset;
        const QRectF box(std::max(x0, area.left() - 1), top + inset, std::max(std::min(x1, area.right() + 1) - std::max(x0, area.left() - 1), 1.0),
                         std::max(rowPx - 2 * inset, 1.0));
        if (isStepBox(s)) {
            painter->setPen(QPen(faint(text, 90), 0));
            painter->setBrush(faint(text, 18));
            painter->drawRect(box);
            continue;
        }
        const QColor colour = phaseColour(s.name, m_palette);
        painter->fillRect(box, colour);
        // Its name when it fits whole (a cut name reads as another).
        if (named && box.width() > 24 && fm.horizontalAdvance(s.name) + 4 <= box.width()) {
            painter->setPen(textOn(colour));
            painter->drawText(box.adjusted(2, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter, s.name);
        }
    }
    drawStepStarts(painter, area);
}

void TimelineSpans::drawSeparators(QCPPainter* painter, const QRectF& area) const
{
    QCPAxis* y = valueAxis();
    const QColor text = m_palette.color(QPalette::Text);
    const QColor alternate = m_palette.color(QPalette::AlternateBase);
    const std::vector<app::TimelineTask>& tasks = m_timeline->tasks;
    for (size_t i = 0; i < tasks.size(); ++i) {
        const double top = y->coordToPixel(tasks[i].firstRow), bottom = y->coordToPixel(tasks[i].firstRow + tasks[i].rows);
        if (std::max(top, bottom) < area.top() || std::min(top, bottom) > area.bottom())
            continue;
        if (i % 2 == 1) // every other task's band shaded, so that its lanes read as one
            painter->fillRect(QRectF(area.left(), std::min(top, bottom), area.width(), std::abs(bottom - top)), alternate);
        if (i == 0)
            continue;
        const bool newJob = jobOf(tasks[i].task) != jobOf(tasks[i - 1].task);
        painter->setPen(QPen(faint(text, newJob ? 150 : 45), newJob ? 2 : 0));
        painter->drawLine(QPointF(area.left(), top), QPointF(area.right(), top));
    }
}

void TimelineSpans::drawStepStarts(QCPPainter* painter, const QRectF& area) const
{
    QCPAxis* x = keyAxis();
    QCPAxis* y = valueAxis();
    painter->setPen(QPen(faint(m_palette.color(QPalette::Text), 170), 0, Qt::DashLine));
    for (const app::TimelineStepStart& s : m_timeline->stepStarts) {
        const double at = x->coordToPixel(toMs(s.t0Us));
        if (at < area.left() || at > area.right())
            continue;
        const app::TimelineTask& task = m_timeline->tasks[size_t(s.task)];
        painter->drawLine(QPointF(at, y->coordToPixel(task.firstRow)), QPointF(at, y->coordToPixel(task.firstRow + task.rows)));
    }
}

TimelineLegend::TimelineLegend(QCustomPlot* plot) : QCPLayoutElement(plot), m_font(plot->font())
{
    m_font.setPointSize(std::max(m_font.pointSize() - 1, 6));
}

void TimelineLegend::setPhases(const QStringList& families, const QPalette& palette)
{
    m_phases = families;
    m_palette = palette;
}

int TimelineLegend::layOut(int width, std::vector<QPoint>* at) const
{
    const QFontMetrics fm(m_font);
    const int line = fm.height(), margin = 6;
    int x = margin, lines = m_phases.isEmpty() ? 0 : 1;
    for (const QString& phase : m_phases) {
        const int advance = line / 2 + 4 + fm.horizontalAdvance(phase) + 12;
        if (x + advance > width - margin && x > margin) {
            x = margin;
            ++lines;
        }
        if (at)
            at->push_back({x, (lines - 1) * line});
        x += advance;
    }
    return lines;
}

QSize TimelineLegend::minimumOuterSizeHint() const
{
    const int width = mParentPlot ? mParentPlot->width() : 400;
    return {0, layOut(width, nullptr) * QFontMetrics(m_font).height() + 4};
}

void TimelineLegend::draw(QCPPainter* painter)
{
    std::vector<QPoint> at;
    layOut(mRect.width(), &at);
    const QFontMetrics fm(m_font);
    const int line = fm.height();
    painter->setFont(m_font);
    const QColor text = m_palette.color(QPalette::Text);
    for (int i = 0; i < m_phases.size(); ++i) {
        const QPoint p = mRect.topLeft() + at[size_t(i)] + QPoint(0, 2);
        const QRectF swatch(p.x(), p.y() + line / 4, line / 2, line / 2);
        if (m_phases[i] == QLatin1String("step")) {
            painter->setPen(QPen(faint(text, 90), 0));
            painter->setBrush(faint(text, 18));
            painter->drawRect(swatch);
        } else {
            painter->fillRect(swatch, phaseColour(m_phases[i], m_palette));
        }
        painter->setPen(text);
        painter->drawText(QPointF(p.x() + line / 2 + 4, p.y() + fm.ascent()), m_phases[i]);
    }
}

} // namespace strata::ui
