// RunHistory's records of the scaling planner: plans, a finished run's prediction, the
// calibration (schema version 4; what they mean: app/plan/plan_history.h).
#include "app/history/run_history.h"
#include "app/history/history_sql.h"

#include <QDateTime>

namespace strata::app {

using namespace history_sql;

QString predictionText(const RunPrediction& prediction)
{
    const auto rate = [](double v) { return QString::number(v, 'f', v < 100 ? 1 : 0); };
    return tr("predicted %1/s, measured %2/s (error %3%4%)")
        .arg(rate(prediction.predictedSamplesPerSec), rate(prediction.measuredSamplesPerSec),
             prediction.error >= 0 ? "+" : "")
        .arg(prediction.error * 100, 0, 'f', 1);
}

bool RunHistory::insertPlan(PlanRecord& plan, QString* error)
{
    if (!ensureOpen(error))
        return false;
    Transaction transaction(m_db, m_path);
    if (!transaction.begin(error))
        return false;
    QSqlQuery q(m_db);
    q.prepare("INSERT INTO plans (experiment, hosts, made_at, plan) VALUES (?, ?, ?, ?)");
    q.addBindValue(plan.experiment.isNull() ? QString("") : plan.experiment);
    q.addBindValue(plan.hosts.isNull() ? QString("") : plan.hosts);
    q.addBindValue(plan.madeAt ? plan.madeAt : QDateTime::currentSecsSinceEpoch());
    q.addBindValue(plan.plan.isEmpty() ? QString("{}") : plan.plan);
    if (!exec(q, error))
        return false;
    const qint64 id = q.lastInsertId().toLongLong();
    for (const PlannedThroughput& p : plan.predictions) {
        QSqlQuery row(m_db);
        // A strategy and worker count predicted twice keeps the first (the plan's own order).
        row.prepare("INSERT OR IGNORE INTO plan_predictions (plan_id, strategy, workers, samples_per_sec, calibration) "
                    "VALUES (?, ?, ?, ?, ?)");
        for (const QVariant& v : {QVariant(id), QVariant(p.strategy), QVariant(p.workers), QVariant(p.samplesPerSec),
                                  QVariant(p.calibration)})
            row.addBindValue(v);
        if (!exec(row, error))
            return false;
    }
    if (!transaction.commit(error))
        return false;
    plan.id = id;
    if (!plan.madeAt)
        plan.madeAt = QDateTime::currentSecsSinceEpoch();
    return true;
}

bool RunHistory::latestPlan(const QString& experiment, qint64 madeBy, std::optional<PlanRecord>* plan,
                            QString* error) const
{
    plan->reset();
    if (!ensureOpen(error))
        return false;
    QSqlQuery q(m_db);
    q.prepare("SELECT id, experiment, hosts, made_at, plan FROM plans WHERE experiment = ? AND (? = 0 OR made_at <= ?) "
              "ORDER BY made_at DESC, id DESC LIMIT 1");
    q.addBindValue(experiment);
    q.addBindValue(madeBy);
    q.addBindValue(madeBy);
    if (!exec(q, error))
        return false;
    if (!q.next())
        return true;
    PlanRecord record;
    record.id = q.value(0).toLongLong();
    record.experiment = q.value(1).toString();
    record.hosts = q.value(2).toString();
    record.madeAt = q.value(3).toLongLong();
    record.plan = q.value(4).toString();
    QSqlQuery rows(m_db);
    rows.prepare("SELECT strategy, workers, samples_per_sec, calibration FROM plan_predictions WHERE plan_id = ? "
                 "ORDER BY rowid");
    rows.addBindValue(record.id);
    if (!exec(rows, error))
        return false;
    while (rows.next())
        record.predictions.push_back(
            {rows.value(0).toString(), rows.value(1).toInt(), rows.value(2).toDouble(), rows.value(3).toDouble()});
    *plan = std::move(record);
    return true;
}

bool RunHistory::recordPrediction(qint64 id, const RunPrediction& prediction, const QString& calibration,
                                  QString* error)
{
    if (!ensureOpen(error))
        return false;
    Transaction transaction(m_db, m_path);
    if (!transaction.begin(error))
        return false;
    QSqlQuery q(m_db);
    q.prepare("UPDATE runs SET plan_id = ?, predicted_samples_per_sec = ?, measured_samples_per_sec = ?, "
              "prediction_error = ? WHERE id = ? AND predicted_samples_per_sec IS NULL");
    for (const QVariant& v : {QVariant(prediction.planId), QVariant(prediction.predictedSamplesPerSec),
                              QVariant(prediction.measuredSamplesPerSec), QVariant(prediction.error), QVariant(id)})
        q.addBindValue(v);
    if (!exec(q, error))
        return false;
    if (q.numRowsAffected() == 0) {
        // Either no such run, or one checked already (its calibration counted once).
        const bool exists = run(id, error).has_value();
        if (exists)
            *error = tr("Run #%1 in the run history %2 was already checked against a plan.").arg(id).arg(m_path);
        return false;
    }
    QSqlQuery c(m_db);
    c.prepare("INSERT OR REPLACE INTO planner_calibration (id, calibration) VALUES (1, ?)");
    c.addBindValue(calibration);
    if (!exec(c, error))
        return false;
    return transaction.commit(error);
}

bool RunHistory::calibration(QString* calibration, QString* error) const
{
    calibration->clear();
    if (!ensureOpen(error))
        return false;
    QSqlQuery q(m_db);
    if (!q.exec("SELECT calibration FROM planner_calibration WHERE id = 1")) {
        *error = describe(m_path, q.lastError());
        return false;
    }
    if (q.next())
        *calibration = q.value(0).toString();
    return true;
}

} // namespace strata::app
