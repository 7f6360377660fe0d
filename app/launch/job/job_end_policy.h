#pragma once
// JobEndPolicy: how a job ends, decided from its tasks' standing alone (no process, no timer):
//
// - Wind-down. The job is over when the tasks that end it have ended (PlannedTask::endsJob:
//   the chief and workers; under ParameterServer the chief, the coordinator, which shuts the
//   workers and ps tasks down). The others still running (an evaluator, a ParameterServer
//   worker or ps task) are given `evaluatorGraceMs` to end by themselves when those all ended
//   well, none otherwise, and are then asked to stop.
// - Grace. A task asked to stop that has not ended when its grace is over is killed; one that
//   cannot be reached to be killed is given up: the run ends without it.
// - Lost tasks. A task that a survivor's error names as lost (lost_tasks.h) and that still
//   runs is asked to stop (given the grace of a task the launcher stops on its own).
//
// The JobLauncher keeps the timers and acts on the answers. Threads: any.

#include "app/metrics/lost_tasks.h"
#include "app/rundir/task_ends.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace strata::app {

// A task as the policy sees it.
struct TaskStanding {
    QString name;
    bool endsJob = true;
    bool ended = false;
    bool terminated = false; // asked to stop
    bool reachable = true;
    TaskEnd end; // when ended
};

class JobEndPolicy {
public:
    // Once every task that ends the job has ended while others run on, not yet asked to stop:
    // how long those are given before they are (the evaluator grace when all the former ended
    // well, 0 otherwise); nullopt otherwise.
    std::optional<int> windDownGrace(const std::vector<TaskStanding>& tasks) const;
    // The wind-down's time is up: the tasks to ask to stop.
    QStringList windDownOver(const std::vector<TaskStanding>& tasks) const;

    // A task's grace after being asked to stop is over: what becomes of it.
    enum class Overdue { None, Kill, GiveUp };
    static Overdue overdue(const TaskStanding& task);

    // The tasks `lost` names as lost by a peer that still run and were not asked to stop.
    QStringList lostToStop(const QList<LostTask>& lost, const std::vector<TaskStanding>& tasks) const;

    static bool endedWell(const TaskEnd& end);

    int evaluatorGraceMs = 0; // JobLauncher::kEvaluatorGraceMs unless set
};

} // namespace strata::app
