#include "app/metrics/job_roles.h"

#include "app/metrics/task_roles.h"

#include "strata/schema/events.h"

#include <algorithm>

namespace strata::app {

namespace {
std::vector<const TaskData*> tasksWhere(const std::vector<TaskData>& tasks, bool (*keep)(const QString&))
{
    std::vector<const TaskData*> out;
    for (const TaskData& t : tasks)
        if (keep(t.task))
            out.push_back(&t);
    return out;
}

bool isWorkerTask(const QString& task) { return task.startsWith(QLatin1String("worker:")); }
} // namespace

bool isCoordinatedJob(const std::vector<TaskData>& tasks)
{
    return std::any_of(tasks.begin(), tasks.end(), [](const TaskData& t) {
        if (isParameterServerTask(t.task))
            return true;
        return schema::readStartEvent(t.start).strategy == "ParameterServer";
    });
}

std::vector<const TaskData*> computingTasks(const std::vector<TaskData>& tasks)
{
    return tasksWhere(tasks, isCoordinatedJob(tasks) ? isWorkerTask : isTrainingTask);
}

std::vector<const TaskData*> throughputTasks(const std::vector<TaskData>& tasks)
{
    return tasksWhere(tasks, isCoordinatedJob(tasks) ? isChiefTask : isTrainingTask);
}

const StepEvent::Worker* coordinatorView(const std::vector<TaskData>& tasks, const QString& worker)
{
    for (const TaskData& t : tasks)
        if (isChiefTask(t.task))
            for (const StepEvent::Worker& w : t.workers)
                if (w.task == worker)
                    return &w;
    return nullptr;
}

JobTraits jobTraits(const MetricsStore& store)
{
    JobTraits traits;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        traits.tasks = !tasks.empty();
        traits.parameterServer = isCoordinatedJob(tasks);
        traits.evaluator = std::any_of(tasks.begin(), tasks.end(), [](const TaskData& t) { return isEvaluatorTask(t.task); });
    });
    return traits;
}

} // namespace strata::app
