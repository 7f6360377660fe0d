// RunHistory: the record's helpers, opening the database and its statements. The schema and
// its migrations: run_history_schema.cpp; writes: run_history_writes.cpp; reads:
// run_history_queries.cpp.
#include "app/history/run_history.h"
#include "app/history/history_sql.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

#include <atomic>

namespace strata::app {

using namespace history_sql;

QString statusName(RunStatus status)
{
    switch (status) {
    case RunStatus::Running: return "running";
    case RunStatus::Completed: return "completed";
    case RunStatus::Stopped: return "stopped";
    case RunStatus::Failed: return "failed";
    case RunStatus::Interrupted: return "interrupted";
    }
    return "failed";
}

std::optional<RunStatus> statusFromName(const QString& name)
{
    for (RunStatus s : {RunStatus::Running, RunStatus::Completed, RunStatus::Stopped, RunStatus::Failed,
                        RunStatus::Interrupted})
        if (statusName(s) == name)
            return s;
    return std::nullopt;
}

std::optional<double> finalMetric(const RunRecord& record, const QString& split, const QString& metric)
{
    const QJsonValue v = QJsonDocument::fromJson(record.metrics.toUtf8()).object().value(split).toObject().value(metric);
    return v.isDouble() ? std::optional(v.toDouble()) : std::nullopt;
}

RunHistory::RunHistory()
{
    static std::atomic<int> instances{0};
    m_connection = QStringLiteral("strata-history-%1").arg(instances.fetch_add(1));
}

RunHistory::~RunHistory()
{
    close();
    const bool added = m_db.isValid();
    m_db = QSqlDatabase(); // no handle may outlive removeDatabase()
    if (added)
        QSqlDatabase::removeDatabase(m_connection);
}

QString RunHistory::defaultPath()
{
    const QString overridden = qEnvironmentVariable("STRATA_HISTORY");
    if (!overridden.isEmpty())
        return overridden;
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation)).filePath("history.sqlite");
}

bool RunHistory::isOpen() const { return m_db.isValid() && m_db.isOpen(); }

void RunHistory::close()
{
    if (m_db.isValid())
        m_db.close();
}

bool RunHistory::open(const QString& path, QString* error)
{
    close();
    m_path = path;
    if (!QSqlDatabase::isDriverAvailable("QSQLITE")) {
        *error = tr("Cannot open the run history %1: Qt's SQLite driver is not installed (Debian package "
                    "libqt6sql6-sqlite).").arg(path);
        return false;
    }
    const QFileInfo file(path);
    if (!QDir().mkpath(file.absolutePath())) {
        *error = tr("Cannot create the directory of the run history %1.").arg(path);
        return false;
    }
    if (file.isDir()) {
        *error = tr("Cannot open the run history %1: it is a directory.").arg(path);
        return false;
    }
    if (!m_db.isValid())
        m_db = QSqlDatabase::addDatabase("QSQLITE", m_connection);
    m_db.setDatabaseName(path);
    if (!m_db.open()) {
        *error = tr("Cannot open the run history %1: %2").arg(path, m_db.lastError().databaseText());
        return false;
    }
    const auto fail = [&](const QString& message) {
        *error = message;
        close();
        return false;
    };
    // Nothing below writes to the file before it is known to be a history this build can
    // read: a damaged, foreign or newer file stays as it was.
    QString reason;
    if (!exec(QStringLiteral("PRAGMA busy_timeout = %1").arg(kBusyTimeoutMs), &reason))
        return fail(reason);
    // The version and the tables from one snapshot: another Strata may be creating the file.
    if (!exec("BEGIN", &reason))
        return fail(reason);
    QSqlQuery q(m_db);
    if (!q.exec("PRAGMA user_version") || !q.next())
        return fail(describe(m_path, q.lastError()));
    const int version = q.value(0).toInt();
    if (version > kSchemaVersion)
        return fail(tr("The run history %1 was written by a newer Strata (schema version %2; this one knows up to "
                       "%3). It was left as it is: use that Strata, or set STRATA_HISTORY to another file.")
                        .arg(path)
                        .arg(version)
                        .arg(kSchemaVersion));
    // Version 0 is a new, empty file; a version without our table is some other database.
    const QString ours = version == 0 ? "SELECT count(*) = 0 FROM sqlite_master"
                                      : "SELECT count(*) = 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'";
    if (!q.exec(ours) || !q.next())
        return fail(describe(m_path, q.lastError()));
    if (!q.value(0).toBool())
        return fail(tr("%1 is not a Strata run history (it holds other tables). It was left as it is: set "
                       "STRATA_HISTORY to another file.").arg(path));
    q.finish();
    if (!exec("COMMIT", &reason))
        return fail(reason);
    if (version < kSchemaVersion && !migrate(&reason))
        return fail(reason);
    // WAL: the window reads while a `strata run` in a terminal writes. synchronous FULL: a
    // recorded run survives a crash of the machine too, not only of Strata (each commit syncs
    // the journal; runs are recorded rarely). foreign_keys: a run's tags go with it.
    if (!exec("PRAGMA journal_mode = WAL", &reason) || !exec("PRAGMA synchronous = FULL", &reason) ||
        !exec("PRAGMA foreign_keys = ON", &reason))
        return fail(reason);
    return true;
}

QString RunHistory::noSuchRun(qint64 id) const
{
    return tr("The run history %1 has no run %2 (deleted?).").arg(m_path).arg(id);
}

bool RunHistory::ensureOpen(QString* error) const
{
    if (isOpen())
        return true;
    *error = m_path.isEmpty() ? tr("No run history is open.") : tr("The run history %1 is not open.").arg(m_path);
    return false;
}

bool RunHistory::exec(QSqlQuery& query, QString* error) const
{
    if (query.exec())
        return true;
    *error = describe(m_path, query.lastError());
    return false;
}

bool RunHistory::exec(const QString& sql, QString* error) const
{
    QSqlQuery q(m_db);
    if (q.exec(sql))
        return true;
    *error = describe(m_path, q.lastError());
    return false;
}

} // namespace strata::app
