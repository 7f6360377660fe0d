#include "app/launch/job/run_files.h"

#include "app/launch/unfollowed_runs.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QStandardPaths>

namespace strata::app {

QString newRunDir(const QString& experimentName)
{
    const QString base = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    const QString stamp = QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss");
    const QString first = QDir(base).filePath("runs/" + experimentName + "-" + stamp);
    // A second run of the experiment within the same second must not share the first's
    // directory: the engine would resume from its checkpoint.
    QString dir = first;
    for (int n = 2; QFileInfo::exists(dir); ++n)
        dir = QStringLiteral("%1-%2").arg(first).arg(n);
    return dir;
}

std::unique_ptr<QLockFile> lockRunDir(const QString& runDir, QString* error)
{
    if (!QDir().mkpath(runDir)) {
        *error = QObject::tr("Cannot create the run directory %1.").arg(runDir);
        return nullptr;
    }
    // One Strata follows a run at a time: two would both write the remote tasks' copies.
    auto lock = std::make_unique<QLockFile>(runLockPath(runDir));
    lock->setStaleLockTime(0);
    if (!lock->tryLock(0)) {
        qint64 pid = 0;
        QString host, app;
        lock->getLockInfo(&pid, &host, &app);
        *error = QObject::tr("Another Strata (process %1 on %2) is following the run in %3.").arg(pid).arg(host, runDir);
        return nullptr;
    }
    return lock;
}

bool readLaunchRecord(const QString& runDir, std::vector<TaskPlace>& places, Json& experiment, QString* error)
{
    if (!readTaskPlaces(runDir, places, error))
        return false;
    QFile launchFile(QDir(runDir).filePath("launch.strata.json"));
    if (places.empty() || !launchFile.open(QIODevice::ReadOnly)) {
        *error = QObject::tr("%1 cannot be followed again: it has no record of where its tasks run (nodes.json and "
                    "launch.strata.json; a run of an older Strata, or of the engine alone).")
                     .arg(runDir);
        return false;
    }
    experiment = Json::parse(launchFile.readAll().toStdString(), nullptr, false);
    if (!experiment.is_object()) {
        *error = QObject::tr("%1 is not an experiment.").arg(launchFile.fileName());
        return false;
    }
    return true;
}

QString stepsPath(const QString& runDir, const QString& task)
{
    return QDir(runDir).filePath("steps-" + taskFileStem(task) + ".jsonl");
}

} // namespace strata::app
