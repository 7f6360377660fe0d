#include "app/launch/unfollowed_runs.h"

#include "app/history/run_history.h"
#include "app/rundir/task_places.h"

#include <QDir>
#include <QFileInfo>
#include <QLockFile>

namespace strata::app {

QString runLockPath(const QString& runDir) { return QDir(runDir).filePath(QStringLiteral("strata.lock")); }

bool isRunFollowed(const QString& runDir)
{
    const QString path = runLockPath(runDir);
    if (!QFileInfo::exists(path))
        return false;
    QLockFile lock(path);
    lock.setStaleLockTime(0);
    if (lock.tryLock(0)) {
        lock.unlock();
        return false;
    }
    return lock.error() == QLockFile::LockFailedError;
}

bool canFollowAgain(const QString& runDir)
{
    return !runDir.isEmpty() && QFileInfo::exists(taskPlacesPath(runDir)) &&
           QFileInfo::exists(QDir(runDir).filePath(QStringLiteral("launch.strata.json")));
}

bool unfollowedRuns(RunHistory& history, QList<qint64>* ids, QString* error)
{
    RunFilter running;
    running.status = RunStatus::Running;
    std::vector<RunRecord> runs;
    if (!history.query(running, &runs, error))
        return false;
    QList<qint64> beyond;
    for (const RunRecord& r : runs) {
        if (!canFollowAgain(r.runDir))
            beyond << r.id;
        else if (!isRunFollowed(r.runDir))
            *ids << r.id;
    }
    return history.markInterrupted(beyond, error);
}

} // namespace strata::app
