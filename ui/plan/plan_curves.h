#pragma once
// The planner's curves: predicted throughput (samples/s) and scaling efficiency against the
// worker count, one line per strategy in its own colour, on a log2 worker axis (ticks at the
// counts predicted), one legend under both. The points the probe measured at (one worker, and the
// all-reduce sweep's ranks) are drawn filled and larger; the others as circles. Follows the palette.

#include "app/plan/scaling_plan.h"

#include <QWidget>

class QCustomPlot;

namespace strata::ui {

class PlanCurves : public QWidget {
    Q_OBJECT

public:
    explicit PlanCurves(QWidget* parent = nullptr);

    void setPlan(const app::plan::ScalingPlan& plan);
    QCustomPlot* throughputPlot() const { return m_throughput; }
    QCustomPlot* efficiencyPlot() const { return m_efficiency; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void draw();

    QCustomPlot* m_throughput;
    QCustomPlot* m_efficiency;
    std::optional<app::plan::ScalingPlan> m_plan;
};

// Whether the probe measured at `prediction`'s worker count (one worker, or the sweep's ranks).
bool probedAt(const app::plan::ScalingPlan& plan, const app::plan::Prediction& prediction);

} // namespace strata::ui
