#include "app/launch/job/job_end_policy.h"

#include <algorithm>

namespace strata::app {

bool JobEndPolicy::endedWell(const TaskEnd& end)
{
    return end.failedToStart.isEmpty() && end.vanished.isEmpty() && !end.crashed && end.exitCode == 0;
}

std::optional<int> JobEndPolicy::windDownGrace(const std::vector<TaskStanding>& tasks) const
{
    bool allEnded = true, allWell = true;
    for (const TaskStanding& t : tasks)
        if (t.endsJob) {
            allEnded = allEnded && t.ended;
            allWell = allWell && endedWell(t.end);
        }
    const bool following =
        std::any_of(tasks.begin(), tasks.end(), [](const TaskStanding& t) { return !t.endsJob && !t.ended && !t.terminated; });
    if (!allEnded || !following)
        return std::nullopt;
    // Training ended well: the evaluator ends by itself once it has evaluated the final
    // weights, and ParameterServer's workers and ps tasks once the coordinator has shut them
    // down, given time; otherwise there is nothing more for them to do.
    return allWell ? evaluatorGraceMs : 0;
}

QStringList JobEndPolicy::windDownOver(const std::vector<TaskStanding>& tasks) const
{
    QStringList names;
    for (const TaskStanding& t : tasks)
        if (!t.endsJob && !t.ended)
            names << t.name;
    return names;
}

JobEndPolicy::Overdue JobEndPolicy::overdue(const TaskStanding& task)
{
    if (!task.terminated || task.ended)
        return Overdue::None;
    // It cannot be told to stop: its job stops it once it is lost to the others (the
    // collective timeout), and following the run again later tells how it ended.
    return task.reachable ? Overdue::Kill : Overdue::GiveUp;
}

QStringList JobEndPolicy::lostToStop(const QList<LostTask>& lost, const std::vector<TaskStanding>& tasks) const
{
    QStringList names;
    for (const LostTask& l : lost)
        if (l.namedByPeer)
            for (const TaskStanding& t : tasks)
                if (t.name == l.task && !t.ended && !t.terminated)
                    names << t.name;
    return names;
}

} // namespace strata::app
