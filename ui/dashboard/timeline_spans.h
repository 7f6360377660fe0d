#pragma once
// What the Timeline panel (timeline_view.h) draws inside QCustomPlot: its spans (a plottable:
// a row per task and lane, x in ms from the view's origin on the job clock, y the row; each span
// a rectangle in its phase's colour, inset by its nesting depth, named inside when it has the
// room; the enclosing "step" span a faint box; each step's start a line over its task's rows;
// a line between tasks, a stronger one between jobs), the phases' colours, and the legend of
// the phases shown (a layout element, so that an exported image has it too).

#include "app/trace/timeline_window.h"

#include <qcustomplot.h>

#include <QColor>
#include <QPalette>
#include <QString>
#include <QStringList>

namespace strata::ui {

// A phase's family: "bucket 3" is a "bucket"; the others are their names.
QString phaseFamily(const QString& name);
// Its colour: the step split's where they mean the same (compute blue, gradient reduction
// orange, input green), the theme's others for the rest; every other bucket lighter, so that
// neighbours part.
QColor phaseColour(const QString& name, const QPalette& palette);
// The families of `timeline`'s spans, in the order the engine runs them.
QStringList phaseFamilies(const app::Timeline& timeline);

class TimelineSpans : public QCPAbstractPlottable {
    Q_OBJECT

public:
    explicit TimelineSpans(QCPAxis* keyAxis, QCPAxis* valueAxis);

    // The spans, at x = (job clock - originUs) / 1000 ms.
    void setTimeline(const app::Timeline* timeline, int64_t originUs);
    void setPalette(const QPalette& palette) { m_palette = palette; }
    double toMs(int64_t us) const { return double(us - m_originUs) / 1000.0; }
    // The span drawn at (ms, row): the innermost there; null when none.
    const app::TimelineSpan* spanAt(double ms, int row) const;

    double selectTest(const QPointF& pos, bool onlySelectable, QVariant* details = nullptr) const override;
    QCPRange getKeyRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange& inKeyRange = QCPRange()) const override;

protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter*, const QRectF&) const override {}

private:
    void drawSeparators(QCPPainter* painter, const QRectF& area) const;
    void drawStepStarts(QCPPainter* painter, const QRectF& area) const;

    const app::Timeline* m_timeline = nullptr;
    int64_t m_originUs = 0;
    QPalette m_palette;
};

// The phases' swatches and names in a line (or as many as the width needs), under the title.
class TimelineLegend : public QCPLayoutElement {
    Q_OBJECT

public:
    explicit TimelineLegend(QCustomPlot* plot);
    void setPhases(const QStringList& families, const QPalette& palette);
    const QStringList& phases() const { return m_phases; }
    QSize minimumOuterSizeHint() const override;

protected:
    void draw(QCPPainter* painter) override;

private:
    // Where each swatch goes for `width` (its name beside it); the lines used.
    int layOut(int width, std::vector<QPoint>* at) const;

    QStringList m_phases;
    QPalette m_palette;
    QFont m_font;
};

} // namespace strata::ui
