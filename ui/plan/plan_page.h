#pragma once
// Plan page: what the scaling planner predicts for the window's experiment (app::plan's
// PlanSession decides and holds the plan; the page shows and asks). Probe runs the planner's
// probe on this machine (its progress beside the button, Cancel stops it; a failure goes to the
// window's banner with the engine's message); then the recommendation with its reasons and the
// calibration it applied, the warnings (speedup below 1 in the error colour; shared cores, noisy
// inputs, probed locally, extrapolated in the warning colour), the predictions' table (the
// model's formula on hover), the curves (throughput and efficiency against workers, one line per
// strategy, the probed points marked) and what the probe measured with its spread. Before the
// first probe the page says what Probe does.

#include "app/plan/plan_session.h"

#include <QWidget>

class QFrame;
class QLabel;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QVBoxLayout;

namespace strata::ui {

class PlanCurves;
class PlanTable;
class ProbeInputsView;

class PlanPage : public QWidget {
    Q_OBJECT

public:
    // `session` must outlive the page.
    explicit PlanPage(app::plan::PlanSession* session, QWidget* parent = nullptr);

    // How Probe probes (tests: a quick probe).
    void setProbeOptions(const app::plan::ProbeOptions& options) { m_options = options; }

    QPushButton* probeButton() const { return m_probe; }
    QPushButton* cancelButton() const { return m_cancel; }
    QLabel* statusLabel() const { return m_status; }
    QLabel* emptyHint() const { return m_emptyHint; }
    QLabel* recommendationLabel() const { return m_recommendation; }
    // The warnings shown, one label each (none: the frame is hidden).
    QList<QLabel*> warningLabels() const;
    PlanTable* table() const { return m_table; }
    PlanCurves* curves() const { return m_curves; }
    ProbeInputsView* inputs() const { return m_inputs; }

Q_SIGNALS:
    void message(const QString& text, bool error);

protected:
    void changeEvent(QEvent* event) override;

private:
    void showPlan();
    void showWarnings(const app::plan::ScalingPlan& plan);
    void showProbing(bool probing);
    void styleFrames();

    app::plan::PlanSession* m_session;
    app::plan::ProbeOptions m_options;
    QPushButton* m_probe;
    QPushButton* m_cancel;
    QLabel* m_status;
    QStackedWidget* m_planOrHint;
    QLabel* m_emptyHint;
    QFrame* m_recommendationFrame;
    QLabel* m_recommendation;
    QFrame* m_warningsFrame;
    QWidget* m_warningsList; // the labels, in a scroll area in the frame
    QVBoxLayout* m_warningsLayout;
    QSplitter* m_split;
    PlanTable* m_table;
    PlanCurves* m_curves;
    ProbeInputsView* m_inputs;
};

} // namespace strata::ui
