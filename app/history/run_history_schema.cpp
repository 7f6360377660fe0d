// RunHistory's schema, one step per version, and the migration that applies the steps.
#include "app/history/run_history.h"
#include "app/history/history_sql.h"

#include <iterator>
#include <vector>

namespace strata::app {

using namespace history_sql;

namespace {

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
    // 3: a batch job's account (Slurm's state of the run's job).
    {"ALTER TABLE runs ADD COLUMN batch_job TEXT NOT NULL DEFAULT ''"},
    // 4: the scaling planner's plans (per experiment: the plan as JSON, and its throughput per
    // strategy and worker count), a finished run's prediction, measurement and error, and the
    // calibration the planner learnt from them (app/plan/plan_history.h).
    {R"(CREATE TABLE plans (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            experiment TEXT NOT NULL,
            hosts TEXT NOT NULL DEFAULT '',
            made_at INTEGER NOT NULL,
            plan TEXT NOT NULL DEFAULT '{}'))",
     "CREATE INDEX plans_experiment ON plans(experiment, made_at)",
     R"(CREATE TABLE plan_predictions (
            plan_id INTEGER NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
            strategy TEXT NOT NULL,
            workers INTEGER NOT NULL,
            samples_per_sec REAL NOT NULL,
            calibration REAL NOT NULL DEFAULT 1,
            PRIMARY KEY (plan_id, strategy, workers)))",
     "ALTER TABLE runs ADD COLUMN plan_id INTEGER",
     "ALTER TABLE runs ADD COLUMN predicted_samples_per_sec REAL",
     "ALTER TABLE runs ADD COLUMN measured_samples_per_sec REAL",
     "ALTER TABLE runs ADD COLUMN prediction_error REAL",
     R"(CREATE TABLE planner_calibration (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            calibration TEXT NOT NULL))"},
};
static_assert(std::size(kMigrations) == RunHistory::kSchemaVersion);

} // namespace

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

} // namespace strata::app
