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

// A finished run checked against the scaling planner's latest plan of its experiment made
// before it started (app/plan/plan_history.h): the plan's throughput for the run's strategy and
// worker count, the run's steady-state throughput, and the error (predicted - measured) /
// measured.
struct RunPrediction {
    qint64 planId = 0;
    double predictedSamplesPerSec = 0;
    double measuredSamplesPerSec = 0;
    double error = 0;
};
// "predicted 812/s, measured 790/s (error +2.8%)"
QString predictionText(const RunPrediction& prediction);

// A plan of the scaling planner as the history keeps it: the plan as JSON (app/plan's
// planToJson) and the job's throughput it predicts per strategy and worker count, which finished
// runs are checked against.
struct PlannedThroughput {
    QString strategy;          // "MultiWorkerMirrored"
    int workers = 0;
    double samplesPerSec = 0;
    double calibration = 1;    // the factor the prediction included (1: none)
};
struct PlanRecord {
    qint64 id = 0;             // set by insertPlan()
    QString experiment;        // the experiment's name (RunRecord::name)
    QString hosts;             // the host set it was made for ("a,b")
    qint64 madeAt = 0;         // unix seconds
    QString plan;              // JSON text
    std::vector<PlannedThroughput> predictions;
};

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
    // Checked against a plan once finished (none: no plan of its experiment, or not checked).
    std::optional<RunPrediction> prediction;

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
                WallSeconds, Tags, PredictionError };

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
    // 3: the batch job's account; 4: the scaling planner's plans, runs' predictions, calibration.
    static constexpr int kSchemaVersion = 4;
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

    // The scaling planner's records (run_history_plans.cpp; what they mean: app/plan/plan_history.h).
    // Adds `plan` (its id is set).
    bool insertPlan(PlanRecord& plan, QString* error);
    // The newest plan of `experiment` made at or before `madeBy` (unix seconds; 0: any time).
    // False with `error` on failure; true with `plan` empty when there is none.
    bool latestPlan(const QString& experiment, qint64 madeBy, std::optional<PlanRecord>* plan, QString* error) const;
    // Run `id`'s prediction and the planner's calibration after it (JSON text), in one
    // transaction: a run is checked once (false, saying so, when it was already).
    bool recordPrediction(qint64 id, const RunPrediction& prediction, const QString& calibration, QString* error);
    // The planner's calibration (JSON text; empty when no run taught one yet).
    bool calibration(QString* calibration, QString* error) const;

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
