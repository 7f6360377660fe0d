#pragma once
// The planner's predictions as a table: one row per strategy and worker count (strategy,
// workers, hosts, step ms, samples/s, speedup, efficiency, what limits the step). Pointing at a
// row shows the model's formula with the numbers put in, and its terms. The recommended row is
// bold; a row of several workers whose speedup is below 1 is in the error colour, one on shared cores or beyond
// what was probed in the warning colour, and says so in its tooltip.

#include "app/plan/scaling_plan.h"

#include <QTableWidget>

namespace strata::ui {

class PlanTable : public QTableWidget {
    Q_OBJECT

public:
    enum Column { StrategyColumn, WorkersColumn, HostsColumn, StepColumn, SamplesColumn, SpeedupColumn,
                  EfficiencyColumn, LimitColumn, ColumnCount };

    explicit PlanTable(QWidget* parent = nullptr);

    void setPlan(const app::plan::ScalingPlan& plan);
    // The row of a strategy and worker count; -1 when the plan has none.
    int rowOf(app::plan::Strategy strategy, int workers) const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void colourRows();

    std::vector<app::plan::Prediction> m_predictions; // by row
    app::plan::Recommendation m_recommendation;
};

// The tooltip of a prediction's row: the formula, its terms, and why it is marked.
QString predictionToolTip(const app::plan::Prediction& prediction);

} // namespace strata::ui
