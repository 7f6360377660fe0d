#pragma once
// JobEnding: the job-end policy (job/job_end_policy.h) carried out on a run's tasks: the
// wind-down's timer, the grace after a task is asked to stop (then it is killed, or given up
// when its node cannot be reached), the tasks a survivor names as lost stopped, and the
// launcher's Stop and Kill task. A command for a task that cannot be reached now is sent once
// it is followed again (LaunchTask::commandsPending).
//
// Threads: the launcher's.

#include "app/launch/job/job_end_policy.h"

#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>
#include <vector>

namespace strata::app {

struct LaunchTask;

class JobEnding : public QObject {
    Q_OBJECT

public:
    using Tasks = std::vector<std::unique_ptr<LaunchTask>>;
    // `tasks`: the launcher's; `recordEnd`: records the end of a task given up.
    JobEnding(const Tasks& tasks, std::function<void(LaunchTask&)> recordEnd, QObject* parent = nullptr);

    JobEndPolicy& policy() { return m_policy; }
    // How long a task the launcher asks to stop on its own (an evaluator, a lost task) has.
    void setGrace(int ms) { m_graceMs = ms; }

    // No timer runs (a new run, or the run finished).
    void reset();
    // A task ended: the tasks that do not end the job, once those that do have ended.
    void windDown();
    // Asks every task still running to stop; kills what is left after `graceMs` when `running`.
    void stopAll(int graceMs, bool running);
    // Asks `task` to stop (once); kills it after `graceMs` if it is still running then.
    void terminate(LaunchTask& task, int graceMs);
    void kill(LaunchTask& task);
    // The tasks `lost` names as lost by a peer are stopped.
    void endLost(const QList<LostTask>& lost);

private:
    std::vector<TaskStanding> standings() const;
    LaunchTask* task(const QString& name) const;
    void askToStop(LaunchTask& task);
    void graceOver();

    const Tasks& m_tasks;
    std::function<void(LaunchTask&)> m_recordEnd;
    JobEndPolicy m_policy;
    int m_graceMs = 0;
    QTimer m_killTimer;
    QTimer m_evaluatorTimer;
};

} // namespace strata::app
