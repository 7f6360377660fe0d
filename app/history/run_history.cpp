#include "app/history/run_history.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>

#include <atomic>
#include <iterator>

namespace strata::app {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("RunHistory", text); }

// The schema, one step per version: kMigrations[v] takes a database from version v to v + 1.
// A step once released never changes (databases out there were made by it); a new version
// adds a step.
const std::vector<const char*> kMigrations[] = {
    // 1: the runs.
    {R"(CREATE TABLE runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            experiment TEXT NOT NULL,
            strategy TEXT NOT NULL,
            replicas INTEGER NOT NULL DEFAULT 0,
            tasks TEXT NOT NULL DEFAULT '[]',
            hosts TEXT NOT NULL DEFAULT '',
            source TEXT NOT NULL,
            started_at INTEGER NOT NULL,
            ended_at INTEGER,
            status TEXT NOT NULL,
            error TEXT NOT NULL DEFAULT '',
            metrics TEXT NOT NULL DEFAULT '{}',
            steps INTEGER NOT NULL DEFAULT 0,
            samples_per_sec REAL NOT NULL DEFAULT 0,
            wall_seconds REAL NOT NULL DEFAULT 0,
            run_dir TEXT NOT NULL DEFAULT ''))"},
    // 2: the user's labels and tags; indexes for the history page's filters.
    {"ALTER TABLE runs ADD COLUMN label TEXT NOT NULL DEFAULT ''",
     R"(CREATE TABLE run_tags (
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            PRIMARY KEY (run_id, tag)))",
     "CREATE INDEX run_tags_tag ON run_tags(tag COLLATE NOCASE)",
     "CREATE INDEX runs_started_at ON runs(started_at)",
     "CREATE INDEX runs_status ON runs(status)",
     "CREATE INDEX runs_strategy ON runs(strategy COLLATE NOCASE)"},
};
static_assert(std::size(kMigrations) == RunHistory::kSchemaVersion);

// SQLite's primary result codes (sqlite3.h), as Qt reports them in nativeErrorCode().
constexpr int kSqliteCorrupt = 11, kSqliteBusy = 5, kSqliteLocked = 6, kSqliteNotADatabase = 26;

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
    }
    return "started_at";
}

// The columns a RunRecord is read from, in readRecord()'s order; the experiment last.
const char* const kColumns =
    "id, name, label, strategy, replicas, tasks, hosts, source, started_at, ended_at, status, error, metrics, "
    "steps, samples_per_sec, wall_seconds, run_dir, "
    "(SELECT group_concat(tag, char(31)) FROM (SELECT tag FROM run_tags WHERE run_id = runs.id "
    "ORDER BY tag COLLATE NOCASE)) AS tags";

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
    r.tags = q.value(17).toString().split(QChar(31), Qt::SkipEmptyParts);
    r.tags.sort(Qt::CaseInsensitive);
    if (withExperiment)
        r.experiment = q.value(18).toString();
    return r;
}

// The message for a failed statement: the file, and what SQLite said, in words for the
// causes a user can act on.
QString describe(const QString& path, const QSqlError& e)
{
    switch (e.nativeErrorCode().toInt() & 0xff) { // extended codes carry the primary one in the low byte
    case kSqliteBusy:
    case kSqliteLocked:
        return tr("The run history %1 is locked by another program (another Strata?): still locked after %2 s. "
                  "Nothing was changed.").arg(path).arg(RunHistory::kBusyTimeoutMs / 1000.0);
    case kSqliteCorrupt:
    case kSqliteNotADatabase:
        return tr("The run history %1 is damaged or is not a SQLite database (%2). It was left as it is: move it "
                  "away to start a new history, or set STRATA_HISTORY to another file.")
            .arg(path, e.databaseText());
    default:
        return tr("Run history %1: %2").arg(path, e.databaseText().isEmpty() ? e.text() : e.databaseText());
    }
}

// One write transaction. BEGIN IMMEDIATE takes the write lock at once (waiting for the busy
// timeout), instead of failing half way when another connection wrote in between. Rolled back
// unless committed.
class Transaction {
public:
    Transaction(const QSqlDatabase& db, const QString& path) : m_db(db), m_path(path) {}
    ~Transaction()
    {
        if (m_open)
            QSqlQuery(m_db).exec("ROLLBACK");
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    bool begin(QString* error) { return m_open = run("BEGIN IMMEDIATE", error); }
    bool commit(QString* error)
    {
        if (!run("COMMIT", error))
            return false;
        m_open = false;
        return true;
    }

private:
    bool run(const char* sql, QString* error)
    {
        QSqlQuery q(m_db);
        if (q.exec(sql))
            return true;
        *error = describe(m_path, q.lastError());
        return false;
    }

    QSqlDatabase m_db;
    QString m_path;
    bool m_open = false;
};

} // namespace

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

bool RunHistory::migrate(QString* error)
{
    for (;;) {
        Transaction transaction(m_db, m_path);
        if (!transaction.begin(error))
            return false;
        // Read under the write lock: another Strata opening a new file at the same moment may
        // have migrated it since open() looked.
        QSqlQuery q(m_db);
        if (!q.exec("PRAGMA user_version") || !q.next()) {
            *error = describe(m_path, q.lastError());
            return false;
        }
        const int version = q.value(0).toInt();
        q.finish();
        if (version > kSchemaVersion) {
            *error = tr("The run history %1 was just updated by a newer Strata (schema version %2). Use that Strata, "
                        "or set STRATA_HISTORY to another file.").arg(m_path).arg(version);
            return false;
        }
        if (version == kSchemaVersion)
            return true;
        for (const char* sql : kMigrations[version])
            if (!exec(QString::fromUtf8(sql), error)) {
                *error = tr("Cannot update the run history %1 to schema version %2: %3")
                             .arg(m_path)
                             .arg(version + 1)
                             .arg(*error);
                return false;
            }
        if (!exec(QStringLiteral("PRAGMA user_version = %1").arg(version + 1), error))
            return false;
        if (!transaction.commit(error))
            return false;
    }
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

bool RunHistory::insertRun(RunRecord& run, QString* error)
{
    if (!ensureOpen(error))
        return false;
    Transaction transaction(m_db, m_path);
    if (!transaction.begin(error))
        return false;
    QSqlQuery q(m_db);
    q.prepare("INSERT INTO runs (name, label, experiment, strategy, replicas, tasks, hosts, source, started_at, "
              "ended_at, status, error, metrics, steps, samples_per_sec, wall_seconds, run_dir) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (const QVariant& v : {QVariant(text(run.name)), QVariant(text(run.label)), QVariant(text(run.experiment)),
                              QVariant(text(run.strategy)), QVariant(run.replicas),
                              QVariant(run.tasks.isEmpty() ? QString("[]") : run.tasks), QVariant(text(run.hosts)),
                              QVariant(text(run.source)), QVariant(run.startedAt),
                              run.endedAt ? QVariant(run.endedAt) : QVariant(), QVariant(statusName(run.status)),
                              QVariant(text(run.error)), QVariant(run.metrics.isEmpty() ? QString("{}") : run.metrics),
                              QVariant(run.steps), QVariant(run.samplesPerSec), QVariant(run.wallSeconds),
                              QVariant(text(run.runDir))})
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
        where << "(name LIKE ? ESCAPE '\\' OR label LIKE ? ESCAPE '\\' OR hosts LIKE ? ESCAPE '\\' OR EXISTS "
                 "(SELECT 1 FROM run_tags WHERE run_id = runs.id AND tag LIKE ? ESCAPE '\\'))";
        values << pattern << pattern << pattern << pattern;
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
