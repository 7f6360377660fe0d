#include "app/metrics/run_outcome.h"

#include "app/metrics/job_roles.h"
#include "app/metrics/task_roles.h"

#include <QCoreApplication>
#include <QStringList>

#include <map>

namespace strata::app {

RunOutcome endedOutcome(const MetricsStore& store)
{
    RunOutcome outcome = RunOutcome::Completed;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        // A ParameterServer job ends as its coordinator does: a worker lost on the way does not
        // fail it (the others go on), and a lost ps task fails the coordinator too.
        std::vector<const TaskData*> deciding;
        for (const TaskData& t : tasks)
            if (!isCoordinatedJob(tasks) || isChiefTask(t.task))
                deciding.push_back(&t);
        for (const TaskData* t : deciding) {
            if (t->state == TaskState::Failed)
                outcome = RunOutcome::Failed;
            else if (t->state == TaskState::Stopped && outcome != RunOutcome::Failed)
                outcome = RunOutcome::Stopped;
            else if (t->state != TaskState::Completed && outcome == RunOutcome::Completed)
                outcome = RunOutcome::Failed; // ended without saying how
        }
        if (deciding.empty())
            outcome = RunOutcome::Failed;
    });
    return outcome;
}

namespace {
// Up to this many tasks that ended alike are named each.
constexpr qsizetype kNamedAlike = 3;
} // namespace

QString outcomeSummary(const MetricsStore& store)
{
    const auto tr = [](const char* text) { return QCoreApplication::translate("strata::app::RunOutcome", text); };
    QString text;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        std::vector<std::pair<QString, QString>> parts; // each task, what is said of it after its name
        const auto said = [&](const TaskData& t, const QString& part) { parts.push_back({t.task, part.mid(t.task.size())}); };
        for (const auto& t : tasks) {
            if (t.state == TaskState::Failed) {
                said(t, tr("%1 failed: %2").arg(t.task, t.error));
            } else if (t.state == TaskState::Stopped) {
                said(t, tr("%1 stopped at step %2 (checkpoint saved)").arg(t.task).arg(t.step));
            } else if (t.done.is_object() && t.done.contains("test") && t.done["test"].is_object()) {
                QStringList metrics;
                for (const auto& [k, v] : t.done["test"].items())
                    if (v.is_number())
                        metrics << QStringLiteral("%1 %2").arg(QString::fromStdString(k)).arg(v.get<double>(), 0, 'f', 4);
                said(t, tr("%1 completed: test %2").arg(t.task, metrics.join(", ")));
            } else if (t.state == TaskState::Completed && t.done.is_object() && t.done.contains("updates")) {
                // A ParameterServer ps task trains no steps: it applied every worker's updates.
                said(t, tr("%1 completed (%2 updates applied)").arg(t.task).arg(t.done.value("updates", qint64{0})));
            } else if (t.state == TaskState::Completed) {
                said(t, tr("%1 completed at step %2").arg(t.task).arg(t.step));
            }
        }
        // Many tasks that ended alike (64 workers with the same test metrics) are said once:
        // "64 tasks (worker:0 … worker:63) completed: test ...", where the first of them was.
        std::map<QString, QStringList> alike;
        for (const auto& [task, rest] : parts)
            alike[rest] << task;
        QStringList lines;
        for (const auto& [task, rest] : parts) {
            const QStringList& them = alike[rest];
            if (them.size() <= kNamedAlike)
                lines << task + rest;
            else if (them.first() == task)
                lines << tr("%1 tasks (%2 … %3)").arg(them.size()).arg(them.first(), them.last()) + rest;
        }
        text = lines.join("; ");
    });
    return text;
}

QString outcomeName(RunOutcome outcome)
{
    const auto tr = [](const char* text) { return QCoreApplication::translate("strata::app::RunOutcome", text); };
    switch (outcome) {
    case RunOutcome::None: return tr("No run yet");
    case RunOutcome::Running: return tr("Running");
    case RunOutcome::Completed: return tr("Completed");
    case RunOutcome::Stopped: return tr("Stopped");
    case RunOutcome::Failed: return tr("Failed");
    }
    return {};
}

const TaskData* primaryTask(const std::vector<TaskData>& tasks)
{
    for (const char* name : {"chief:0", "worker:0"})
        for (const TaskData& t : tasks)
            if (t.task == QLatin1String(name))
                return &t;
    return tasks.empty() ? nullptr : &tasks.front();
}

} // namespace strata::app
