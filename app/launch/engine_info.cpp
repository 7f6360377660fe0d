#include "app/launch/engine_info.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

namespace strata::app {

QString defaultEnginePath()
{
    const QString fromEnvironment = qEnvironmentVariable("STRATA_ENGINE");
    if (!fromEnvironment.isEmpty())
        return fromEnvironment;
    const QString dir = QCoreApplication::applicationDirPath();
    for (const QString& candidate : {dir + "/strata-engine", dir + "/../engine/strata-engine"}) {
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable())
            return info.canonicalFilePath();
    }
    const QString onPath = QStandardPaths::findExecutable("strata-engine");
    return onPath.isEmpty() ? QStringLiteral("strata-engine") : onPath;
}

QString engineProblem(const QString& path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return QCoreApplication::translate("strata", "The Strata engine was not found at %1 (set STRATA_ENGINE or "
                                                     "install strata-engine).")
            .arg(path);
    if (!info.isFile())
        return QCoreApplication::translate("strata", "The Strata engine path %1 is not a file.").arg(path);
    if (!info.isExecutable())
        return QCoreApplication::translate("strata", "The Strata engine %1 is not executable (its permissions do not "
                                                     "allow running it).")
            .arg(path);
    return {};
}

EngineInfo probeEngine(const QString& path)
{
    EngineInfo info;
    info.path = path;
    info.error = engineProblem(path);
    if (!info.error.isEmpty())
        return info;
    QProcess version;
    version.start(path, {"--version"});
    if (!version.waitForFinished(10000) || version.exitCode() != 0) {
        info.error = QCoreApplication::translate("strata", "The Strata engine %1 does not run: %2")
                         .arg(path, version.errorString());
        return info;
    }
    info.version = QString::fromUtf8(version.readAllStandardOutput()).trimmed().section(' ', -1);
    QProcess devices;
    devices.start(path, {"devices", "--json"});
    if (devices.waitForFinished(10000) && devices.exitCode() == 0) {
        int cpus = 0, gpus = 0;
        for (const QByteArray& line : devices.readAllStandardOutput().split('\n')) {
            if (!line.startsWith('{'))
                continue;
            const auto d = nlohmann::ordered_json::parse(line.toStdString(), nullptr, false);
            if (d.is_discarded())
                continue;
            (d.value("kind", std::string()) == "gpu" ? gpus : cpus)++;
        }
        info.host = {std::max(cpus, 1), gpus, true};
    }
    return info;
}

QStringList deviceNames(int cpus, int gpus)
{
    QStringList names;
    for (int i = 0; i < cpus; ++i)
        names << QStringLiteral("cpu:%1").arg(i);
    for (int i = 0; i < gpus; ++i)
        names << QStringLiteral("gpu:%1").arg(i);
    return names;
}

} // namespace strata::app
