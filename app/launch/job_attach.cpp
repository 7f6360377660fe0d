// JobLauncher::attach: a run launched earlier (by this or another Strata) followed again from
// its run directory.
#include "app/launch/job_launcher.h"

#include "app/launch/backends/backend_set.h"
#include "app/launch/backends/launch_backend.h"
#include "app/launch/job/launch_task.h"
#include "app/launch/job/run_files.h"
#include "app/metrics/task_roles.h"
#include "app/rundir/run_replay.h"
#include "app/rundir/task_places.h"

#include <QFileInfo>

namespace strata::app {

bool JobLauncher::attach(const QString& runDir, const QString& enginePath, QString* error)
{
    if (isRunning()) {
        *error = tr("A run is already in progress.");
        return false;
    }
    std::vector<TaskPlace> places;
    Json experiment;
    if (!readLaunchRecord(runDir, places, experiment, error) || !(m_lock = lockRunDir(runDir, error)))
        return false;
    m_runDir = runDir;
    m_localEngine = QFileInfo(enginePath).absoluteFilePath();
    m_experiment = experiment;
    const std::string strategy = strategyType(experiment);
    std::vector<PlannedTask> plans;
    for (const TaskPlace& p : places)
        plans.push_back({p.task, isTrainingTask(p.task), endsJob(p.task, strategy), p.node, p.host, 0, p.remote,
                         p.remote || p.slurm ? p.engine : m_localEngine, p.runDir, p.slurm});
    setTasks(std::move(plans));
    for (size_t i = 0; i < places.size(); ++i)
        m_tasks[i]->backend->repair(runDir, places[i]);
    // What happened so far, from the files; then each task that has not ended is followed on.
    std::map<QString, ReplayPosition> positions;
    QString replayError;
    if (!loadRun(runDir, *m_store, &replayError, &positions))
        m_store->clear();
    m_phase = Phase::Running;
    for (size_t i = 0; i < places.size(); ++i)
        attachTask(*m_tasks[i], places[i], positions.count(places[i].task) ? positions[places[i].task] : ReplayPosition{});
    for (LaunchBackend* b : m_backends->all())
        b->watch();
    for (auto& t : m_tasks)
        if (!t->ended)
            follow(*t);
    Q_EMIT started();
    if (m_endsRecorded == int(m_tasks.size()))
        QMetaObject::invokeMethod(this, [this] { finish(); }, Qt::QueuedConnection);
    return true;
}

void JobLauncher::attachTask(LaunchTask& task, const TaskPlace& place, const ReplayPosition& position)
{
    task.backend->attached(task, place, position);
    task.records = std::make_shared<StepRecordFeed>(stepsPath(m_runDir, task.plan.name), position.stepsOffset);
    m_store->setTaskPlace(place.task, place.node, place.host);
    if (position.end) {
        task.end = *position.end;
        task.ended = true;
        ++m_endsRecorded;
    }
}

} // namespace strata::app
