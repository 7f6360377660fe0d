#include "app/plan/plan_session.h"

#include "app/experiment/experiment_document.h"
#include "app/plan/plan_calibration.h"
#include "app/plan/plan_history.h"
#include "app/plan/probe_result.h"
#include "app/plan/scaling_model.h"
#include "app/rundir/json_file.h"

#include <QDir>
#include <QMap>

#include <set>

namespace strata::app::plan {

PlanSession::PlanSession(ExperimentDocument* document, RunHistory* history, QObject* parent)
    : QObject(parent), m_document(document), m_history(history)
{
    // Another experiment opened: its newest plan, or none.
    connect(m_document, &ExperimentDocument::filePathChanged, this, &PlanSession::restoreLatest);
}

void PlanSession::restoreLatest()
{
    if (probing() || !m_history->isOpen())
        return;
    std::optional<PlanRecord> record;
    QString error;
    if (!m_history->latestPlan(experimentName(m_document->json()), 0, &record, &error))
        Q_EMIT message(error, true);
    std::optional<ScalingPlan> plan;
    Calibration calibration;
    if (record) {
        if (!storedCalibration(*m_history, &calibration, &error))
            calibration = {};
        try {
            plan = restoredPlan(*record, calibration);
        } catch (const std::exception& e) {
            Q_EMIT message(tr("The plan of %1 kept in the run history cannot be read: %2")
                               .arg(record->experiment, QString::fromUtf8(e.what())),
                           true);
        }
    }
    if (!plan && !m_plan)
        return;
    m_plan = std::move(plan);
    m_calibration = m_plan ? calibration : Calibration{};
    m_madeAt = m_plan ? QDateTime::fromSecsSinceEpoch(record->madeAt) : QDateTime();
    m_storedPlanId = m_plan ? record->id : 0;
    Q_EMIT planChanged();
}

PlanSession::~PlanSession() = default;

bool PlanSession::probing() const { return m_runner && m_runner->running(); }

bool PlanSession::probe(const ProbeOptions& options)
{
    if (probing())
        return false;
    // The document as it is now, unsaved edits included, with its data paths made absolute.
    m_probeDir = std::make_unique<QTemporaryDir>(QDir::temp().filePath(QStringLiteral("strata-probe-XXXXXX")));
    m_probedExperiment = m_document->forLaunch();
    const QString file = m_probeDir->filePath(QStringLiteral("probe.strata.json"));
    QString error;
    if (!m_probeDir->isValid() || !writeJsonFile(file, m_probedExperiment, &error)) {
        m_probeDir.reset();
        Q_EMIT failed(tr("Cannot write the experiment for the probe: %1")
                          .arg(error.isEmpty() ? tr("no temporary directory") : error));
        return false;
    }
    m_runner = std::make_unique<ProbeRunner>();
    // The runner names the part just measured (its event); the view says what runs now.
    connect(m_runner.get(), &ProbeRunner::progress, this, [this](const QString& done) {
        static const QMap<QString, QString> next{
            {QStringLiteral("probe_compute"), tr("compute measured; the all-reduce sweep")},
            {QStringLiteral("probe_collective"), tr("all-reduce measured; the ParameterServer round trip")},
            {QStringLiteral("probe_ps"), tr("ParameterServer round trip measured")}};
        Q_EMIT progress(next.value(done, done));
    });
    connect(m_runner.get(), &ProbeRunner::finished, this, [this](const ProbeResult& probe) {
        endProbe();
        onProbed(probe);
    });
    connect(m_runner.get(), &ProbeRunner::failed, this, [this](const QString& message) {
        endProbe();
        Q_EMIT failed(message);
    });
    ProbeOptions run = options;
    if (run.enginePath.isEmpty())
        run.enginePath = m_enginePath;
    m_runner->start(file, run);
    Q_EMIT probingChanged(true);
    Q_EMIT progress(tr("the model's step"));
    return true;
}

void PlanSession::cancel()
{
    if (!probing())
        return;
    m_runner->cancel(); // the engine killed; the runner says nothing more
    endProbe();
    Q_EMIT cancelled();
}

void PlanSession::endProbe()
{
    m_probeDir.reset();
    // The runner emitted the signal being handled: it goes once that returns.
    if (m_runner)
        m_runner.release()->deleteLater();
    Q_EMIT probingChanged(false);
}

void PlanSession::onProbed(const ProbeResult& probe)
{
    try {
        const PlanRequest request = requestFor(m_probedExperiment, probe);
        QString error;
        m_calibration = {};
        if (m_history->isOpen() && !storedCalibration(*m_history, &m_calibration, &error))
            Q_EMIT message(error, true);
        m_plan = planScaling(probe, request, m_calibration);
    } catch (const std::exception& e) {
        Q_EMIT failed(tr("Cannot make a plan from the probe: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    m_madeAt = QDateTime::currentDateTime();
    m_storedPlanId = 0;
    if (m_history->isOpen()) {
        QString error;
        if (const auto record = storePlan(*m_history, *m_plan, m_probedExperiment, &error))
            m_storedPlanId = record->id;
        else
            Q_EMIT message(tr("The plan is not kept in the run history, so runs cannot be checked against it: %1")
                               .arg(error),
                           true);
    }
    Q_EMIT planChanged();
}

void PlanSession::makePlan(const ProbeResult& probe)
{
    m_probedExperiment = m_document->forLaunch();
    onProbed(probe);
}

void PlanSession::setPlan(ScalingPlan plan)
{
    m_plan = std::move(plan);
    m_calibration = {};
    m_madeAt = QDateTime::currentDateTime();
    m_storedPlanId = 0;
    Q_EMIT planChanged();
}

QString PlanSession::calibrationNote() const
{
    return m_plan ? plan::calibrationNote(*m_plan, m_calibration) : QString();
}

std::optional<RunPrediction> PlanSession::checkFinishedRun(qint64 runId, const MetricsStore& store)
{
    if (!m_history->isOpen() || runId <= 0)
        return std::nullopt;
    const std::optional<MeasuredRun> measured = measuredRun(store);
    if (!measured)
        return std::nullopt;
    QString error;
    const std::optional<RunPrediction> prediction = checkRun(*m_history, runId, *measured, &error);
    if (!error.isEmpty())
        Q_EMIT message(tr("Run #%1 was not checked against its plan: %2").arg(runId).arg(error), true);
    if (prediction)
        Q_EMIT runChecked(runId, *prediction);
    return prediction;
}

} // namespace strata::app::plan
