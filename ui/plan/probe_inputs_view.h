#pragma once
// What the planner's probe measured, as the plan rests on it: the model's compute per step (at
// each thread count, alone and with the host's cores busy), the input pipeline, the all-reduce
// sweep's fitted latency and bandwidth, the ParameterServer round trip; each with its spread
// (the robust coefficient of variation and samples, as the noise verdict judges them, or the
// fit's error), a noisy one (above the noise threshold) in the warning colour.

#include "app/plan/scaling_plan.h"

#include <QGroupBox>

class QGridLayout;

namespace strata::ui {

class ProbeInputsView : public QGroupBox {
    Q_OBJECT

public:
    explicit ProbeInputsView(QWidget* parent = nullptr);

    void setPlan(const app::plan::ScalingPlan& plan);
    // The rows shown: name, value, spread (tests read them).
    QList<QStringList> rows() const { return m_rows; }

private:
    // `details`: the name's tooltip (what it was measured over).
    void addRow(const QString& name, const QString& value, const QString& spread, bool noisy,
                const QString& details = {});

    QGridLayout* m_grid;
    QList<QStringList> m_rows;
};

} // namespace strata::ui
