#pragma once
// What the tasks of a run do together, from what the store holds. Under ParameterServer the
// chief coordinates: its `step` events are the job's (the global step, the loss, the job's
// samples/s) while each worker reports its own steps, so the job's throughput is the
// chief's, not a sum, and the step times are the workers'. Under the other strategies every
// chief and worker task trains and reports its own share (task_roles.h).
//
// Call under the store's lock (MetricsStore::read()).

#include "app/metrics/metrics_store.h"

#include <vector>

namespace strata::app {

// A ParameterServer job: it has a ps task, or a task's `start` names the strategy.
bool isCoordinatedJob(const std::vector<TaskData>& tasks);
// The tasks that compute steps (each its own throughput, step times, replicas): the chief and
// workers, or under ParameterServer the workers.
std::vector<const TaskData*> computingTasks(const std::vector<TaskData>& tasks);
// The tasks whose samples/s add up to the job's: the chief and workers, or under
// ParameterServer the chief (the coordinator) alone.
std::vector<const TaskData*> throughputTasks(const std::vector<TaskData>& tasks);
// The ParameterServer coordinator's latest view of `worker` (null: none).
const StepEvent::Worker* coordinatorView(const std::vector<TaskData>& tasks, const QString& worker);

// What kind of job the store's tasks make, for views that show only what applies (takes the
// store's lock itself).
struct JobTraits {
    bool tasks = false;           // any task has been heard of
    bool evaluator = false;       // an evaluator task evaluates the chief's checkpoints
    bool parameterServer = false; // a ParameterServer job
};
JobTraits jobTraits(const MetricsStore& store);

} // namespace strata::app
