#pragma once
// A Slurm job as `scontrol show job -o JOB` describes it: its state, why it waits, where it
// runs, how often it was requeued. Pure parsing; the backend polls (slurm_backend.h).

#include <QString>

#include <optional>

namespace strata::app {

struct SlurmJobState {
    QString state;    // PENDING, RUNNING, COMPLETING, COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL, ...
    QString reason;   // why it waits or ended ("Resources", "Priority", "NodeDown", "None")
    QString nodes;    // its node list ("n[1-3]"); empty while pending
    int restarts = 0; // times it was requeued
    QString exitCode; // "0:0" (status:signal)

    // Waiting to run (again): PENDING, REQUEUED, REQUEUE_HOLD, ... ; its tasks are not running.
    bool waiting() const;
    // Over for good: no task of it runs again.
    bool over() const;
    // As the task table shows a task of the job while it waits: "pending (Resources)".
    QString waitingText() const;
};

// The state in the one-line output of `scontrol show job -o`; nullopt when the output holds
// no JobState (the job is unknown to Slurm: too old, or never was).
std::optional<SlurmJobState> parseJobState(const QString& scontrolLine);

} // namespace strata::app
