#pragma once
// Where each run's step time goes, side by side: a stacked bar per run (compute, gradient
// reduction, input wait; mean ms per step) from the comparison's run summaries, in the run's
// colour: compute in full, gradient reduction lighter, input wait lightest (the legend shows
// the three shades). The runs' names under the bars never overlap, whatever the width: they
// are elided in the middle when a little too wide (to 60% at most), else turned 45 or 90
// degrees (each at most 40% of the plot's height), and at 90 degrees only every k-th is
// written when the bars are narrower than a line. A tooltip over a bar gives its run's full
// name and figures.

#include "app/compare/comparison.h"

#include <QColor>
#include <QList>
#include <QStringList>
#include <QWidget>

#include <vector>

class QCustomPlot;

namespace strata::ui {

class SplitBars : public QWidget {
    Q_OBJECT

public:
    explicit SplitBars(QWidget* parent = nullptr);

    // One bar per run, in order, in its colour (`colours`: one per run); a run without step
    // times gets none.
    void setRuns(const std::vector<app::RunSummary>& runs, const QList<QColor>& colours);
    // PNG, SVG or PDF by suffix, legend and axes included; false with `error` set.
    bool exportImage(const QString& path, QString* error = nullptr) const;
    QCustomPlot* plot() const { return m_plot; }
    // The runs' names as written under the bars now (elided, or empty where left out).
    QStringList tickLabels() const { return m_shownLabels; }

protected:
    void changeEvent(QEvent* event) override; // colours follow the palette
    bool eventFilter(QObject* watched, QEvent* event) override; // the bars' tooltips

private:
    void applyPalette();
    void showBars();
    // Fits the names to the width the bars have now; replots when that changes them.
    void fitLabels();

    QCustomPlot* m_plot;
    std::vector<app::RunSummary> m_runs;
    QList<QColor> m_colours;
    QStringList m_shownLabels;
};

} // namespace strata::ui
