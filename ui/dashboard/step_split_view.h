#pragma once
// Where a step's time goes now, as numbers and a stacked bar per task that computes steps:
// compute, gradient reduction, input wait and the rest, in ms per step over the latest windows
// (app/metrics/step_split.h). A line plot of the step time is flattened by one slow first step;
// these figures are not.

#include "app/metrics/step_split.h"

#include <QWidget>

namespace strata::ui {

class StepSplitView : public QWidget {
    Q_OBJECT

public:
    explicit StepSplitView(QWidget* parent = nullptr);

    void setSplits(const QList<app::TaskStepSplit>& splits);
    const QList<app::TaskStepSplit>& splits() const { return m_splits; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    static constexpr int kTasksShown = 6; // then "and N more"
    QList<app::TaskStepSplit> m_splits;
};

} // namespace strata::ui
