#include "app/launch/backends/local/local_backend.h"

#include "app/launch/backends/local/local_task_process.h"
#include "app/rundir/run_replay.h"
#include "app/rundir/task_places.h"

#include <QDir>
#include <QFileInfo>
#include <QSysInfo>

namespace strata::app {

QString LocalBackend::hostText(const PlannedTask&) const
{
    // This machine by its name (a local node's host is often just "localhost").
    return QSysInfo::machineHostName();
}

bool LocalBackend::canStart(const PlannedTask& task, const QString& enginePath, QString* error) const
{
    // The engine the launch was given as it was written (the plan holds its absolute path).
    const QFileInfo local(task.engine == QFileInfo(enginePath).absoluteFilePath() ? enginePath : task.engine);
    if (local.exists() && local.isFile() && local.isExecutable())
        return true;
    *error = !local.exists() ? tr("The Strata engine was not found at %1.").arg(local.filePath())
                             : tr("The Strata engine %1 is not executable.").arg(local.filePath());
    return false;
}

void LocalBackend::forget()
{
    LaunchBackend::forget();
    m_frontKills.clear();
}

void LocalBackend::attached(LaunchTask& task, const TaskPlace& place, const ReplayPosition& position)
{
    task.eventsOffset = position.offset;
    task.stderrOffset =
        QFileInfo(QDir(host().runDir()).filePath("stderr-" + taskFileStem(place.task) + ".log")).size();
}

std::unique_ptr<TaskProcess> LocalBackend::createFront(LaunchTask& task)
{
    return std::make_unique<LocalTaskProcess>(task.plan.engine);
}

void LocalBackend::killSent(LaunchTask& task)
{
    auto& timer = m_frontKills[&task];
    if (timer)
        return;
    timer = std::make_unique<QTimer>();
    timer->setSingleShot(true);
    connect(timer.get(), &QTimer::timeout, this, [&task] {
        if (task.front && !task.ended)
            task.front->kill();
    });
    timer->start(task.eventsOffset >= 0 ? kFrontKillMs : 0);
}

} // namespace strata::app
