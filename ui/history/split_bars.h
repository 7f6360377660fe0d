#pragma once
// Where each run's step time goes, side by side: a stacked bar per run (compute, gradient
// reduction, input wait; mean ms per step), from the comparison's run summaries.

#include "app/compare/comparison.h"

#include <QWidget>

#include <vector>

class QCustomPlot;

namespace strata::ui {

class SplitBars : public QWidget {
    Q_OBJECT

public:
    explicit SplitBars(QWidget* parent = nullptr);

    // One bar per run, in order; a run without step times gets none.
    void setRuns(const std::vector<app::RunSummary>& runs);
    // PNG, SVG or PDF by suffix, legend and axes included; false with `error` set.
    bool exportImage(const QString& path, QString* error = nullptr) const;
    QCustomPlot* plot() const { return m_plot; }

protected:
    void changeEvent(QEvent* event) override; // colours follow the palette

private:
    void applyPalette();

    QCustomPlot* m_plot;
};

} // namespace strata::ui
