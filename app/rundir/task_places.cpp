#include "app/rundir/task_places.h"

#include "app/rundir/json_file.h"

#include <QDir>
#include <QObject>

namespace strata::app {

QString taskPlacesPath(const QString& runDir) { return QDir(runDir).filePath(QStringLiteral("nodes.json")); }

QString taskFileStem(QString task)
{
    return task.replace(QLatin1Char(':'), QLatin1Char('-')).replace(QLatin1Char('/'), QLatin1Char('-'));
}

bool writeTaskPlaces(const QString& runDir, const std::vector<TaskPlace>& places, QString* error)
{
    Json tasks = Json::array();
    for (const TaskPlace& p : places)
        tasks.push_back({{"task", p.task.toStdString()},
                         {"node", p.node.toStdString()},
                         {"host", p.host.toStdString()},
                         {"remote", p.remote},
                         {"engine", p.engine.toStdString()},
                         {"run_dir", p.runDir.toStdString()},
                         {"events_base", p.eventsBase},
                         {"stderr_base", p.stderrBase},
                         {"steps_base", p.stepsBase},
                         {"slurm", p.slurm}});
    return writeJsonFile(taskPlacesPath(runDir), Json{{"tasks", tasks}}, error);
}

bool readTaskPlaces(const QString& runDir, std::vector<TaskPlace>& places, QString* error)
{
    places.clear();
    const QString path = taskPlacesPath(runDir);
    Json tasks;
    if (!readTaskList(path, QObject::tr("a record of where the tasks run"), tasks, error))
        return false;
    const auto text = [](const Json& t, const char* key) {
        return t.contains(key) && t[key].is_string() ? QString::fromStdString(t[key].get<std::string>()) : QString();
    };
    const auto number = [](const Json& t, const char* key) {
        return t.contains(key) && t[key].is_number_integer() ? t[key].get<qint64>() : qint64(0);
    };
    for (const Json& t : tasks) {
        if (!t.is_object() || text(t, "task").isEmpty()) {
            *error = QObject::tr("%1 is not a record of where the tasks run: task %2 has no name").arg(path).arg(places.size());
            places.clear();
            return false;
        }
        places.push_back({text(t, "task"), text(t, "node"), text(t, "host"),
                          t.contains("remote") && t["remote"].is_boolean() && t["remote"].get<bool>(), text(t, "engine"),
                          text(t, "run_dir"), number(t, "events_base"), number(t, "stderr_base"),
                          number(t, "steps_base"), t.contains("slurm") && t["slurm"].is_boolean() && t["slurm"].get<bool>()});
    }
    return true;
}

} // namespace strata::app
