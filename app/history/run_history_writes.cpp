// RunHistory's writes: adding and finishing runs, labels and tags, batch jobs, removing, marking
// interrupted.
#include "app/history/run_history.h"
#include "app/history/history_sql.h"

#include <QDir>

namespace strata::app {

using namespace history_sql;

namespace {

// Qt binds a null QString as SQL NULL; the text columns are NOT NULL.
QString text(const QString& s) { return s.isNull() ? QString("") : s; }

QStringList normalizedTags(const QStringList& tags)
{
    QStringList out;
    for (const QString& t : tags)
        if (const QString tag = t.trimmed(); !tag.isEmpty() && !out.contains(tag))
            out << tag;
    out.sort(Qt::CaseInsensitive);
    return out;
}

} // namespace

bool RunHistory::insertRun(RunRecord& run, QString* error)
{
    if (!ensureOpen(error))
        return false;
    Transaction transaction(m_db, m_path);
    if (!transaction.begin(error))
        return false;
    QSqlQuery q(m_db);
    q.prepare("INSERT INTO runs (name, label, experiment, strategy, replicas, tasks, hosts, source, started_at, "
              "ended_at, status, error, metrics, steps, samples_per_sec, wall_seconds, run_dir, batch_job) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const QVariant& v : {QVariant(text(run.name)), QVariant(text(run.label)), QVariant(text(run.experiment)),
                              QVariant(text(run.strategy)), QVariant(run.replicas),
                              QVariant(run.tasks.isEmpty() ? QString("[]") : run.tasks), QVariant(text(run.hosts)),
                              QVariant(text(run.source)), QVariant(run.startedAt),
                              run.endedAt ? QVariant(run.endedAt) : QVariant(), QVariant(statusName(run.status)),
                              QVariant(text(run.error)), QVariant(run.metrics.isEmpty() ? QString("{}") : run.metrics),
                              QVariant(run.steps), QVariant(run.samplesPerSec), QVariant(run.wallSeconds),
                              QVariant(text(run.runDir)), QVariant(text(run.batchJob))})
        q.addBindValue(v);
    if (!exec(q, error))
        return false;
    const qint64 id = q.lastInsertId().toLongLong();
    run.tags = normalizedTags(run.tags);
    for (const QString& tag : std::as_const(run.tags)) {
        QSqlQuery t(m_db);
        t.prepare("INSERT INTO run_tags (run_id, tag) VALUES (?, ?)");
        t.addBindValue(id);
        t.addBindValue(tag);
        if (!exec(t, error))
            return false;
    }
    if (!transaction.commit(error))
        return false;
    run.id = id;
    return true;
}

bool RunHistory::finishRun(qint64 id, const RunEnd& end, QString* error)
{
    if (!ensureOpen(error))
        return false;
    QSqlQuery q(m_db);
    q.prepare("UPDATE runs SET ended_at = ?, status = ?, error = ?, metrics = ?, steps = ?, samples_per_sec = ?, "
              "wall_seconds = ? WHERE id = ?");
    q.addBindValue(end.endedAt ? end.endedAt : QDateTime::currentSecsSinceEpoch());
    q.addBindValue(statusName(end.status));
    q.addBindValue(text(end.error));
    q.addBindValue(end.metrics.isEmpty() ? QString("{}") : end.metrics);
    q.addBindValue(end.steps);
    q.addBindValue(end.samplesPerSec);
    q.addBindValue(end.wallSeconds);
    q.addBindValue(id);
    return execOnRun(q, id, error);
}

bool RunHistory::execOnRun(QSqlQuery& query, qint64 id, QString* error)
{
    if (!exec(query, error))
        return false;
    if (query.numRowsAffected() == 0) {
        *error = noSuchRun(id);
        return false;
    }
    return true;
}

bool RunHistory::rename(qint64 id, const QString& label, QString* error)
{
    if (!ensureOpen(error))
        return false;
    QSqlQuery q(m_db);
    q.prepare("UPDATE runs SET label = ? WHERE id = ?");
    q.addBindValue(text(label.trimmed()));
    q.addBindValue(id);
    return execOnRun(q, id, error);
}

bool RunHistory::setBatchJob(qint64 id, const QString& account, QString* error)
{
    if (!ensureOpen(error))
        return false;
    QSqlQuery q(m_db);
    q.prepare("UPDATE runs SET batch_job = ? WHERE id = ?");
    q.addBindValue(text(account));
    q.addBindValue(id);
    return execOnRun(q, id, error);
}

bool RunHistory::setTags(qint64 id, const QStringList& tags, QString* error)
{
    if (!run(id, error))
        return false;
    Transaction transaction(m_db, m_path);
    if (!transaction.begin(error))
        return false;
    QSqlQuery q(m_db);
    q.prepare("DELETE FROM run_tags WHERE run_id = ?");
    q.addBindValue(id);
    if (!exec(q, error))
        return false;
    for (const QString& tag : normalizedTags(tags)) {
        q.prepare("INSERT INTO run_tags (run_id, tag) VALUES (?, ?)");
        q.addBindValue(id);
        q.addBindValue(tag);
        if (!exec(q, error))
            return false;
    }
    if (!transaction.commit(error))
        return false;
    return true;
}

bool RunHistory::removeRun(qint64 id, bool deleteDirectory, QString* error)
{
    const std::optional<RunRecord> record = run(id, error);
    if (!record)
        return false;
    // The record goes in a transaction committed only once the directory is gone, so a
    // directory that cannot be removed keeps its record (and the user can try again).
    Transaction transaction(m_db, m_path);
    if (!transaction.begin(error))
        return false;
    QSqlQuery q(m_db);
    q.prepare("DELETE FROM runs WHERE id = ?");
    q.addBindValue(id);
    if (!exec(q, error))
        return false;
    const QDir dir(record->runDir);
    if (deleteDirectory && !record->runDir.isEmpty() && dir.exists()) {
        // Only what Strata made: a run directory holds the experiment it launched.
        if (!dir.exists("launch.strata.json")) {
            *error = tr("%1 does not look like a run directory (it has no launch.strata.json): neither it nor the "
                        "run was removed.").arg(record->runDir);
            return false;
        }
        if (!QDir(record->runDir).removeRecursively()) {
            *error = tr("Cannot remove the run directory %1 (some of it may be gone); the run is kept in the "
                        "history.").arg(record->runDir);
            return false;
        }
    }
    if (!transaction.commit(error))
        return false;
    return true;
}

bool RunHistory::markInterrupted(const QList<qint64>& ids, QString* error, int* count)
{
    if (!ensureOpen(error))
        return false;
    int marked = 0;
    for (qint64 id : ids) {
        QSqlQuery q(m_db);
        q.prepare("UPDATE runs SET status = ?, ended_at = NULL WHERE id = ? AND status = ?");
        q.addBindValue(statusName(RunStatus::Interrupted));
        q.addBindValue(id);
        q.addBindValue(statusName(RunStatus::Running));
        if (!exec(q, error))
            return false;
        marked += q.numRowsAffected();
    }
    if (count)
        *count = marked;
    return true;
}

} // namespace strata::app
