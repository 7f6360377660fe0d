// RunHistory's reads: one run, and the runs a filter selects in its order.
#include "app/history/run_history.h"
#include "app/history/history_sql.h"

namespace strata::app {

using namespace history_sql;

namespace {

// The SQL that sorts by each RunFilter::Sort (a closed list: nothing from outside reaches
// the statement's text).
QString sortExpression(RunFilter::Sort sort)
{
    const auto testMetric = [](const char* name) {
        return QStringLiteral("CASE WHEN json_valid(metrics) THEN json_extract(metrics, '$.test.%1') END").arg(name);
    };
    switch (sort) {
    case RunFilter::StartedAt: return "started_at";
    case RunFilter::Name: return "coalesce(nullif(label, ''), name) COLLATE NOCASE";
    case RunFilter::Strategy: return "strategy COLLATE NOCASE";
    case RunFilter::Replicas: return "replicas";
    case RunFilter::Status: return "status";
    case RunFilter::Steps: return "steps";
    case RunFilter::SamplesPerSec: return "samples_per_sec";
    case RunFilter::TestAccuracy: return testMetric("accuracy");
    case RunFilter::TestLoss: return testMetric("loss");
    case RunFilter::WallSeconds: return "wall_seconds";
    case RunFilter::Tags: return "tags COLLATE NOCASE";
    case RunFilter::PredictionError: return "prediction_error";
    }
    return "started_at";
}

// The columns a RunRecord is read from, in readRecord()'s order; the experiment last.
const char* const kColumns =
    "id, name, label, strategy, replicas, tasks, hosts, source, started_at, ended_at, status, error, metrics, "
    "steps, samples_per_sec, wall_seconds, run_dir, batch_job, "
    "(SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM run_tags WHERE run_id = runs.id "
    "ORDER BY tag COLLATE NOCASE)) AS tags, "
    "plan_id, predicted_samples_per_sec, measured_samples_per_sec, prediction_error";

RunRecord readRecord(const QSqlQuery& q, bool withExperiment)
{
    RunRecord r;
    r.id = q.value(0).toLongLong();
    r.name = q.value(1).toString();
    r.label = q.value(2).toString();
    r.strategy = q.value(3).toString();
    r.replicas = q.value(4).toInt();
    r.tasks = q.value(5).toString();
    r.hosts = q.value(6).toString();
    r.source = q.value(7).toString();
    r.startedAt = q.value(8).toLongLong();
    r.endedAt = q.value(9).toLongLong();
    // Only this build's names are written (newer schemas are refused on open).
    r.status = statusFromName(q.value(10).toString()).value_or(RunStatus::Failed);
    r.error = q.value(11).toString();
    r.metrics = q.value(12).toString();
    r.steps = q.value(13).toLongLong();
    r.samplesPerSec = q.value(14).toDouble();
    r.wallSeconds = q.value(15).toDouble();
    r.runDir = q.value(16).toString();
    r.batchJob = q.value(17).toString();
    r.tags = q.value(18).toString().split(QChar(31), Qt::SkipEmptyParts);
    r.tags.sort(Qt::CaseInsensitive);
    if (!q.value(20).isNull())
        r.prediction = RunPrediction{q.value(19).toLongLong(), q.value(20).toDouble(), q.value(21).toDouble(),
                                     q.value(22).toDouble()};
    if (withExperiment)
        r.experiment = q.value(23).toString();
    return r;
}

} // namespace

std::optional<RunRecord> RunHistory::run(qint64 id, QString* error) const
{
    if (!ensureOpen(error))
        return std::nullopt;
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT %1, experiment FROM runs WHERE id = ?").arg(kColumns));
    q.addBindValue(id);
    if (!exec(q, error))
        return std::nullopt;
    if (!q.next()) {
        *error = noSuchRun(id);
        return std::nullopt;
    }
    return readRecord(q, true);
}

bool RunHistory::query(const RunFilter& filter, std::vector<RunRecord>* runs, QString* error) const
{
    if (!ensureOpen(error))
        return false;
    QStringList where;
    QVariantList values;
    if (!filter.text.isEmpty()) {
        QString escaped = filter.text;
        escaped.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
        const QString pattern = '%' + escaped + '%';
        where << "(name LIKE ? ESCAPE '\\' OR label LIKE ? ESCAPE '\\' OR hosts LIKE ? ESCAPE '\\' OR "
                 "batch_job LIKE ? ESCAPE '\\' OR EXISTS "
                 "(SELECT 1 FROM run_tags WHERE run_id = runs.id AND tag LIKE ? ESCAPE '\\'))";
        values << pattern << pattern << pattern << pattern << pattern;
    }
    if (!filter.strategy.isEmpty()) {
        where << "strategy = ? COLLATE NOCASE";
        values << filter.strategy;
    }
    if (filter.status) {
        where << "status = ?";
        values << statusName(*filter.status);
    }
    if (filter.startedFrom.isValid()) {
        where << "started_at >= ?";
        values << filter.startedFrom.toSecsSinceEpoch();
    }
    if (filter.startedTo.isValid()) {
        where << "started_at < ?";
        values << filter.startedTo.toSecsSinceEpoch();
    }
    const QString direction = filter.order == Qt::AscendingOrder ? "ASC" : "DESC";
    QString sql = QStringLiteral("SELECT %1%2 FROM runs").arg(kColumns, filter.withExperiment ? ", experiment" : "");
    if (!where.isEmpty())
        sql += " WHERE " + where.join(" AND ");
    // The id breaks ties, so equal keys keep one order from query to query.
    sql += QStringLiteral(" ORDER BY %1 %2, id %2").arg(sortExpression(filter.sort), direction);
    if (filter.limit > 0) {
        sql += " LIMIT ?";
        values << filter.limit;
    }
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    q.prepare(sql);
    for (const QVariant& v : std::as_const(values))
        q.addBindValue(v);
    if (!exec(q, error))
        return false;
    runs->clear();
    while (q.next())
        runs->push_back(readRecord(q, filter.withExperiment));
    if (q.lastError().isValid()) { // a step that failed half way (the file damaged under us)
        *error = describe(m_path, q.lastError());
        return false;
    }
    return true;
}

} // namespace strata::app
