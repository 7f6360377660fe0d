// MetricsStore: what the launcher tells of a task besides its output: how it ended, where it
// runs, whether its node can be heard; and the app's own log lines.
#include "app/metrics/metrics_store.h"
#include "app/metrics/metrics_store_parts.h"

namespace strata::app {

using namespace store_parts;

void MetricsStore::endTask(const QString& task, double time,
                           const std::function<std::optional<std::pair<QString, QString>>(TaskData&)>& record)
{
    if (time <= 0)
        time = now();
    {
        const auto lock = acquire();
        TaskData& td = taskData(task);
        td.exited = true;
        if (const auto line = record(td))
            m_log.push_back({time, task, line->first, line->second});
        m_logChanged = true;
        noteStateChange(task);
        // Its steps no longer hold back the judging of the others'.
        watchStragglers();
    }
    scheduleNotify();
}

void MetricsStore::taskEnded(const QString& task, int exitCode, bool crashed, const QString& stderrTail, double time)
{
    endTask(task, time, [&](TaskData& td) -> std::optional<std::pair<QString, QString>> {
        td.exitCode = exitCode;
        td.crashed = crashed;
        const QString how = crashed ? QStringLiteral("%1 was killed by signal %2").arg(task).arg(exitCode)
                                    : QStringLiteral("%1 exited with status %2").arg(task).arg(exitCode);
        const QString tail = stderrTail.trimmed();
        // A failed task's stderr ends with the error it already sent as an event: said once.
        const bool repeats = td.state == TaskState::Failed && !td.error.isEmpty() && tail.contains(td.error);
        const QString account = tail.isEmpty() || repeats ? how : how + QStringLiteral(":\n") + tail;
        if (!td.done.is_null()) {
            // It finished and said so; only an unusual exit is worth a line.
            if (crashed || exitCode != 0)
                return std::pair(QStringLiteral("warning"), account);
            return std::nullopt;
        }
        // A failed task's own error event already says why: it is kept, and the exit logged.
        if (td.state != TaskState::Failed) {
            td.state = TaskState::Failed;
            td.error = account;
        }
        return std::pair(QStringLiteral("error"), account);
    });
}

void MetricsStore::taskFailedToStart(const QString& task, const QString& message, double time)
{
    endTask(task, time, [&](TaskData& td) {
        td.state = TaskState::Failed;
        td.error = message;
        return std::optional(std::pair(QStringLiteral("error"), message));
    });
}

void MetricsStore::taskVanished(const QString& task, const QString& message, double time)
{
    endTask(task, time, [&](TaskData& td) {
        td.unreachable = false;
        const QString account = QStringLiteral("%1: %2").arg(task, message);
        if (td.done.is_null() && td.state != TaskState::Failed) {
            td.state = TaskState::Failed;
            td.error = account;
        }
        return std::optional(std::pair(QStringLiteral("error"), account));
    });
}

void MetricsStore::setTaskPlace(const QString& task, const QString& node, const QString& host)
{
    {
        const auto lock = acquire();
        TaskData& td = taskData(task);
        td.node = node;
        td.host = host;
        noteStateChange(task);
    }
    scheduleNotify();
}

void MetricsStore::setTaskReachable(const QString& task, bool reachable, const QString& why)
{
    {
        const auto lock = acquire();
        TaskData& td = taskData(task);
        if (td.unreachable == !reachable)
            return;
        td.unreachable = !reachable;
        td.unreachableWhy = reachable ? QString() : why;
        m_log.push_back({now(), task, reachable ? QStringLiteral("info") : QStringLiteral("warning"), why});
        m_logChanged = true;
        noteStateChange(task);
    }
    scheduleNotify();
}

void MetricsStore::setTaskScheduled(const QString& task, const QString& state, const QString& why)
{
    {
        const auto lock = acquire();
        TaskData& td = taskData(task);
        if (td.scheduled == state)
            return;
        td.scheduled = state;
        if (!why.isEmpty()) {
            m_log.push_back({now(), task, QStringLiteral("info"), why});
            m_logChanged = true;
        }
        noteStateChange(task);
    }
    scheduleNotify();
}

void MetricsStore::appendLog(const QString& task, const QString& level, const QString& message)
{
    {
        const auto lock = acquire();
        m_log.push_back({now(), task, level, message});
        m_logChanged = true;
    }
    scheduleNotify();
}

} // namespace strata::app
