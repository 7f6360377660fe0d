#include "app/launch/job_ending.h"

#include "app/launch/backends/launch_backend.h"
#include "app/launch/job/launch_task.h"
#include "app/rundir/task_places.h"
#include "app/metrics/display_text.h"

namespace strata::app {

namespace {

TaskStanding standingOf(const LaunchTask& t)
{
    return {t.plan.name, t.plan.endsJob, t.ended, t.terminated, t.reachable, t.end};
}

} // namespace

JobEnding::JobEnding(const Tasks& tasks, std::function<void(LaunchTask&)> recordEnd, QObject* parent)
    : QObject(parent), m_tasks(tasks), m_recordEnd(std::move(recordEnd))
{
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, &JobEnding::graceOver);
    m_evaluatorTimer.setSingleShot(true);
    connect(&m_evaluatorTimer, &QTimer::timeout, this, [this] {
        for (const QString& name : m_policy.windDownOver(standings()))
            terminate(*task(name), m_graceMs);
    });
}

void JobEnding::reset()
{
    m_killTimer.stop();
    m_evaluatorTimer.stop();
}

std::vector<TaskStanding> JobEnding::standings() const
{
    std::vector<TaskStanding> out;
    out.reserve(m_tasks.size());
    for (const auto& t : m_tasks)
        out.push_back(standingOf(*t));
    return out;
}

LaunchTask* JobEnding::task(const QString& name) const
{
    for (const auto& t : m_tasks)
        if (t->plan.name == name)
            return t.get();
    return nullptr;
}

void JobEnding::windDown()
{
    if (m_evaluatorTimer.isActive())
        return;
    if (const std::optional<int> grace = m_policy.windDownGrace(standings()))
        m_evaluatorTimer.start(*grace);
}

void JobEnding::stopAll(int graceMs, bool running)
{
    m_evaluatorTimer.stop();
    for (const auto& t : m_tasks)
        if (!t->ended && !t->terminated)
            askToStop(*t);
    if (running)
        m_killTimer.start(graceMs);
}

void JobEnding::terminate(LaunchTask& task, int graceMs)
{
    if (task.ended)
        return;
    if (!task.terminated)
        askToStop(task);
    if (!m_killTimer.isActive())
        m_killTimer.start(graceMs);
}

void JobEnding::askToStop(LaunchTask& task)
{
    task.terminated = true;
    if (task.front && task.reachable)
        task.front->terminate(); // the follower passes it to the task as `stop`: it checkpoints, reports done
    else
        task.commandsPending = true;
}

void JobEnding::kill(LaunchTask& task)
{
    if (task.ended)
        return;
    task.killed = true;
    if (!task.front || !task.reachable) {
        task.commandsPending = true;
        return;
    }
    task.front->write("kill\n");
    task.backend->killSent(task);
}

void JobEnding::endLost(const QList<LostTask>& lost)
{
    // Not logged here: its end is (the run rebuilt from its directory shows the same), and the
    // task table says it is lost and why.
    for (const QString& name : m_policy.lostToStop(lost, standings()))
        terminate(*task(name), m_graceMs);
}

void JobEnding::graceOver()
{
    for (const auto& t : m_tasks) {
        switch (JobEndPolicy::overdue(standingOf(*t))) {
        case JobEndPolicy::Overdue::GiveUp: // the run ends without it
            t->end.vanished = tr("its node %1 could not be reached to stop it; the job ends it when it "
                                 "loses it, and `strata attach` tells how it ended")
                                  .arg(placeText(t->plan.node, t->plan.host));
            m_recordEnd(*t);
            break;
        case JobEndPolicy::Overdue::Kill: kill(*t); break;
        case JobEndPolicy::Overdue::None: break;
        }
    }
}

} // namespace strata::app
