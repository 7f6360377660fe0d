#pragma once
// RunRecorder: writes one RunController run into a RunHistory: a `running` record when the
// engines have started (the experiment as launched, strategy, replicas, tasks and hosts, run
// directory, where it was started from), completed with its outcome once every task has
// ended (status, the failed tasks' errors, final metrics, steps, mean throughput, wall time).
// A launch that started no engine is not a run and is not recorded.
//
// Failures (the database unavailable, locked, deleted under it) come back as results; the
// caller reports them and the run goes on regardless.
//
// Threads: the history's (the thread of the RunController that owns it).

#include "app/experiment/validation.h"
#include "app/history/run_history.h"
#include "app/metrics/metrics_store.h"
#include "app/metrics/run_outcome.h"


namespace strata::app {

class RunRecorder {
public:
    // `history` must outlive the recorder; `source`: "app", "headless" or "sweep".
    RunRecorder(RunHistory* history, const QString& source);

    // The engines of `tasks` were started in `runDir` on `experiment` (as launched), task i on
    // `hosts[i]` ("node (host)").
    bool recordStart(const Json& experiment, const Validation& validation, const QString& runDir,
                     const QStringList& tasks, const QStringList& hosts, QString* error);
    // The run of `record` is followed again (it went on while no Strata followed it): its end
    // goes into that record, its wall time counted from its start.
    void resume(const RunRecord& record);
    // What the scheduler told of the run's batch job (RunRecord::batchJob).
    bool recordBatchJob(const QString& account, QString* error);
    // Nothing is being recorded any more (following it again failed).
    void forget() { m_open = false; }
    // Every task has ended; `store` holds all they reported. Nothing to do (true) when the
    // start could not be recorded: that failure was reported then.
    bool recordEnd(RunOutcome outcome, const MetricsStore& store, QString* error);

    RunHistory* history() const { return m_history; }
    const QString& source() const { return m_source; }
    // The record of the current or last run; 0 when none was recorded.
    qint64 runId() const { return m_runId; }

private:
    RunHistory* m_history;
    QString m_source;
    qint64 m_runId = 0;
    bool m_open = false; // a run is recorded as running and not finished yet
    qint64 m_startedMs = 0; // unix ms
};

// How a run ended, from what its tasks reported: final metrics from the training task's
// `done` event (the chief, else the first worker; for a run that failed, its last epoch's),
// the furthest step and the mean throughput of the training tasks (chief, workers; added up:
// each trains on samples of its own), and every task's error.
RunEnd runEndFromStore(RunOutcome outcome, const MetricsStore& store, double wallSeconds);

} // namespace strata::app
