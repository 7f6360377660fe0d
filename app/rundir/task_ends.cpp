#include "app/rundir/task_ends.h"

#include "app/rundir/json_file.h"
#include "strata/schema/events.h"

#include <QDir>

namespace strata::app {

void applyTaskEnd(MetricsStore& store, const TaskEnd& end)
{
    if (!end.failedToStart.isEmpty())
        store.taskFailedToStart(end.task, end.failedToStart, end.time);
    else if (!end.vanished.isEmpty())
        store.taskVanished(end.task, end.vanished, end.time);
    else
        store.taskEnded(end.task, end.exitCode, end.crashed, end.stderrTail, end.time);
}

std::optional<TaskEnd> exitFromEvent(const Json& event)
{
    // A line from a process: a field of another type is absent, as in every event.
    const auto text = [&](const char* key) -> std::optional<std::string> {
        const auto it = event.find(key);
        return it != event.end() && it->is_string() ? std::optional(it->get<std::string>()) : std::nullopt;
    };
    if (!event.is_object() || text("type") != schema::event::kExit)
        return std::nullopt;
    const auto number = [&](const char* key) -> std::optional<int> {
        if (event.contains(key) && event[key].is_number_integer())
            return event[key].get<int>();
        return std::nullopt;
    };
    TaskEnd end;
    end.task = QString::fromStdString(text("task").value_or(std::string()));
    end.time = event.contains("t") && event["t"].is_number() ? event["t"].get<double>() : 0;
    if (const auto signal = number("signal")) {
        end.exitCode = *signal;
        end.crashed = true;
    } else if (const auto code = number("code")) {
        end.exitCode = *code;
    } else {
        end.vanished = QString::fromStdString(text("message").value_or("its supervisor disappeared"));
    }
    return end;
}

QString taskEndsPath(const QString& runDir)
{
    return QDir(runDir).filePath(QStringLiteral("tasks.json"));
}

bool writeTaskEnds(const QString& runDir, const std::vector<TaskEnd>& ends, QString* error)
{
    Json tasks = Json::array();
    for (const TaskEnd& e : ends) {
        tasks.push_back({{"task", e.task.toStdString()},
                         {"exit_code", e.exitCode},
                         {"crashed", e.crashed},
                         {"stderr_tail", e.stderrTail.toStdString()},
                         {"failed_to_start", e.failedToStart.isEmpty() ? Json() : Json(e.failedToStart.toStdString())},
                         {"ended", e.time}});
        if (!e.vanished.isEmpty())
            tasks.back()["vanished"] = e.vanished.toStdString();
    }
    return writeJsonFile(taskEndsPath(runDir), Json{{"tasks", tasks}}, error);
}

bool readTaskEnds(const QString& runDir, std::vector<TaskEnd>& ends, QString* error)
{
    ends.clear();
    const QString path = taskEndsPath(runDir);
    Json tasks;
    if (!readTaskList(path, QObject::tr("a task record"), tasks, error))
        return false;
    const auto invalid = [&](const QString& why) {
        *error = QObject::tr("%1 is not a task record: %2").arg(path, why);
        ends.clear();
        return false;
    };
    for (const Json& t : tasks) {
        const auto field = [&](const char* key) -> const Json& {
            static const Json null;
            return t.is_object() && t.contains(key) ? t[key] : null;
        };
        if (!field("task").is_string() || !field("exit_code").is_number_integer() || !field("crashed").is_boolean()
            || !field("stderr_tail").is_string() || !(field("failed_to_start").is_string() || field("failed_to_start").is_null())
            || !field("ended").is_number())
            return invalid(QObject::tr("task %1 lacks task, exit_code, crashed, stderr_tail, failed_to_start or ended")
                               .arg(ends.size()));
        TaskEnd e;
        e.task = QString::fromStdString(field("task").get<std::string>());
        e.exitCode = field("exit_code").get<int>();
        e.crashed = field("crashed").get<bool>();
        e.stderrTail = QString::fromStdString(field("stderr_tail").get<std::string>());
        if (field("failed_to_start").is_string())
            e.failedToStart = QString::fromStdString(field("failed_to_start").get<std::string>());
        e.time = field("ended").get<double>();
        if (field("vanished").is_string())
            e.vanished = QString::fromStdString(field("vanished").get<std::string>());
        ends.push_back(std::move(e));
    }
    return true;
}

} // namespace strata::app
