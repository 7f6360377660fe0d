#pragma once
// PlanSession: the Plan view's controller (a QObject of the app layer, no widgets), owned by the
// window's WindowSession. It holds the plan of the window's experiment: probes the experiment as
// it is now (ProbeRunner on the document written to a temporary file), makes the plan with the
// calibration the run history keeps, stores it there (plan_history.h), and checks each finished
// run of the window against the newest plan of its experiment. The Plan view shows what it holds
// and follows its signals.
//
// Threads: the GUI thread (the history's).

#include "app/history/run_history.h"
#include "app/metrics/metrics_store.h"
#include "app/plan/probe_runner.h"
#include "app/plan/scaling_plan.h"

#include <QDateTime>
#include <QObject>
#include <QTemporaryDir>

#include <memory>
#include <optional>

namespace strata::app {
class ExperimentDocument;
}

namespace strata::app::plan {

class PlanSession : public QObject {
    Q_OBJECT

public:
    // `document` and `history` (open or not) must outlive the session.
    PlanSession(ExperimentDocument* document, RunHistory* history, QObject* parent = nullptr);
    ~PlanSession() override;

    // The engine the probe runs (empty: defaultEnginePath()).
    void setEnginePath(const QString& path) { m_enginePath = path; }

    // Starts a probe of the document as it is now; `progress` follows, then `planChanged` or
    // `failed`. False (with `failed` emitted) when it cannot start.
    bool probe(const ProbeOptions& options = {});
    // Stops the probe: `cancelled` follows (not `failed`), and the plan shown stays.
    void cancel();
    bool probing() const;

    // The plan made last (none before the first probe).
    const std::optional<ScalingPlan>& plan() const { return m_plan; }
    // When it was made; where the history stored it (0: not stored, why in `storeError`).
    QDateTime madeAt() const { return m_madeAt; }
    qint64 storedPlanId() const { return m_storedPlanId; }
    // The plan of a probe made elsewhere (`strata plan`, a test): made with the history's
    // calibration and stored, as a probed one.
    void makePlan(const ProbeResult& probe);
    // Shows `plan` as it is (nothing recomputed, nothing stored): a plan made by a caller.
    void setPlan(ScalingPlan plan);
    // The newest plan the run history keeps for the document's experiment, remade from its probe
    // with today's calibration (none: no plan shown); done when another experiment is opened.
    // Nothing while probing or without a history.
    void restoreLatest();

    // Which (strategy, host set) factors the plan applied, for people: "calibrated by 3 runs:
    // MultiWorkerMirrored x0.93 (2 runs), ..."; empty when none applied.
    QString calibrationNote() const;

    // The run `runId` of the window (its store) finished: checked against the newest plan of
    // its experiment. The prediction recorded, or none (nothing to check against, or `message`
    // says why it failed).
    std::optional<RunPrediction> checkFinishedRun(qint64 runId, const MetricsStore& store);

Q_SIGNALS:
    void probingChanged(bool probing);
    // What the probe measures now ("the all-reduce sweep").
    void progress(const QString& what);
    void planChanged();
    // The probe (or making the plan) failed: the engine's message.
    void failed(const QString& message);
    void cancelled();
    // News for the window's banner (the history could not store the plan, ...).
    void message(const QString& text, bool error);
    void runChecked(qint64 runId, const strata::app::RunPrediction& prediction);

private:
    void onProbed(const ProbeResult& probe);
    void endProbe();

    ExperimentDocument* m_document;
    RunHistory* m_history;
    QString m_enginePath;
    std::unique_ptr<ProbeRunner> m_runner;
    std::unique_ptr<QTemporaryDir> m_probeDir; // the document as probed, while the probe runs
    nlohmann::ordered_json m_probedExperiment;
    std::optional<ScalingPlan> m_plan;
    Calibration m_calibration; // what the plan was made with
    QDateTime m_madeAt;
    qint64 m_storedPlanId = 0;
};

} // namespace strata::app::plan
