#pragma once
// RunHistory: every run this user started (from the window, `strata run` or a sweep), kept in
// a SQLite database (Qt Sql): the experiment as launched, strategy, tasks and hosts, start
// and end, how it ended and why, final metrics, throughput and the run directory.
//
// The database is one file (defaultPath(): the user's data directory, or $STRATA_HISTORY).
// Its schema is versioned (PRAGMA user_version) and migrated forward on open, one
// transaction per version; a file from a newer Strata, a damaged file, or one that is not a
// run history is refused with a message naming it and left exactly as it was. Several
// processes may share the file (WAL journal); one holding it locked makes an operation wait
// up to two seconds, then fail with a message saying so.
//
// Every operation answers true, or false with a message naming the file and SQLite's reason
// in `error`; nothing fails silently.
//
// Threads: an instance owns its own connection and must be used on the thread that opened it
// (a Qt Sql rule). Two instances, in one process or several, may open the same file.

#include <QDateTime>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

class QSqlQuery;

namespace strata::app {

enum class RunStatus {
    Running,     // started, not finished yet
    Completed,
    Stopped,     // stopped by the user, a checkpoint saved
    Failed,      // a task failed, crashed or was killed
    Interrupted, // still `running` when Strata started again: the process recording it died
};
QString statusName(RunStatus status); // "running", "completed", ...
std::optional<RunStatus> statusFromName(const QString& name);

struct RunRecord {
    qint64 id = 0;          // set by insertRun()
    QString name;           // the experiment's name
    QString label;          // the user's name for the run; empty: `name`
    QString experiment;     // the whole experiment document as launched (JSON text)
    QString strategy;       // the strategy that trains (a TPU's fallback)
    int replicas = 0;
    QString tasks;          // JSON text: [{"task": "worker:0", "host": "box"}]
    QString hosts;          // the tasks' hosts, comma separated (searched by the text filter)
    QString source;         // "app", "headless" or "sweep"
    qint64 startedAt = 0;   // unix seconds
    qint64 endedAt = 0;     // unix seconds; 0 while running
    RunStatus status = RunStatus::Running;
    QString error;          // why it failed: each failed task's message
    QString metrics;        // JSON text: {"train": {...}, "validation": {...}, "test": {...}}
    qint64 steps = 0;
    double samplesPerSec = 0; // mean training throughput over the run
    double wallSeconds = 0;
    QString runDir;
    QStringList tags;       // sorted
    // A run submitted as a batch job: what its scheduler last told of it ("Slurm job 12:
    // PENDING (Resources)", "Slurm job 12: RUNNING, restart 1"); empty for other runs.
    QString batchJob;

    QString displayName() const { return label.isEmpty() ? name : label; }
};

// How a run ended, for finishRun().
struct RunEnd {
    RunStatus status = RunStatus::Completed;
    QString error;
    QString metrics; // JSON text, as RunRecord::metrics
    qint64 steps = 0;
    double samplesPerSec = 0;
    double wallSeconds = 0;
    qint64 endedAt = 0; // unix seconds; 0: now
};

// A final metric of a record ("test", "accuracy"); none when the run did not report it.
std::optional<double> finalMetric(const RunRecord& record, const QString& split, const QString& metric);

// Which runs query() returns, in which order. Filtering, sorting and the limit happen in SQL.
struct RunFilter {
    enum Sort { StartedAt, Name, Strategy, Replicas, Status, Steps, SamplesPerSec, TestAccuracy, TestLoss,
                WallSeconds, Tags };

    QString text;                     // contained in the name, label, a tag, a host or the batch job (any case)
    QString strategy;                 // exact type, any case; empty: all
    std::optional<RunStatus> status;  // none: all
    QDateTime startedFrom, startedTo; // [from, to); invalid: open-ended
    Sort sort = StartedAt;
    Qt::SortOrder order = Qt::DescendingOrder; // newest first
    int limit = 0;                    // 0: all
    bool withExperiment = false;      // also read each run's experiment text (large); run() always does
};

class RunHistory {
public:
    // The schema this build writes. Version 1: `runs`; 2: run labels, tags, filter indexes;
    // 3: the batch job's account.
    static constexpr int kSchemaVersion = 3;
    // How long an operation waits for another program holding the database locked.
    static constexpr int kBusyTimeoutMs = 2000;

    RunHistory();
    ~RunHistory();
    RunHistory(const RunHistory&) = delete;
    RunHistory& operator=(const RunHistory&) = delete;

    // $STRATA_HISTORY when set, else history.sqlite in the user's data directory.
    static QString defaultPath();

    // Opens (creating it and its directory when missing) and migrates the database at
    // `path`; closes the one open before. On failure nothing is open and the file is kept
    // as it was.
    bool open(const QString& path, QString* error);
    bool isOpen() const;
    const QString& path() const { return m_path; }
    void close();

    // Adds `run` (its id is set); its status is usually Running.
    bool insertRun(RunRecord& run, QString* error);
    bool finishRun(qint64 id, const RunEnd& end, QString* error);
    // The user's name for a run; empty: back to the experiment's name.
    bool rename(qint64 id, const QString& label, QString* error);
    bool setTags(qint64 id, const QStringList& tags, QString* error);
    // What the scheduler last told of the run's batch job (RunRecord::batchJob).
    bool setBatchJob(qint64 id, const QString& account, QString* error);
    // Forgets a run; with `deleteDirectory` (the caller asked the user) its run directory
    // goes too. The record is kept when the directory cannot be removed.
    bool removeRun(qint64 id, bool deleteDirectory, QString* error);
    // Marks the runs `ids` that are still `running` as `interrupted`: their Strata ended before
    // they did and they cannot be followed again (unfollowed_runs.h). `count`: how many were
    // marked.
    bool markInterrupted(const QList<qint64>& ids, QString* error, int* count = nullptr);

    std::optional<RunRecord> run(qint64 id, QString* error) const;
    bool query(const RunFilter& filter, std::vector<RunRecord>* runs, QString* error) const;

private:
    // Brings the schema to kSchemaVersion, one transaction per version.
    bool migrate(QString* error);
    bool exec(QSqlQuery& query, QString* error) const;
    // exec() of an UPDATE of run `id`; false, naming the run, when there is no such run.
    bool execOnRun(QSqlQuery& query, qint64 id, QString* error);
    bool exec(const QString& sql, QString* error) const;
    bool ensureOpen(QString* error) const;
    QString noSuchRun(qint64 id) const;

    QString m_connection; // unique per instance
    QSqlDatabase m_db;
    QString m_path;
};

} // namespace strata::app
