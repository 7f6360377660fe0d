#include "app/history/run_recorder.h"

#include "app/metrics/job_roles.h"
#include "app/metrics/task_roles.h"

#include <QDateTime>

#include <algorithm>

namespace strata::app {

namespace {

QString jsonText(const Json& j) { return QString::fromStdString(j.dump()); }

// The task whose metrics are the run's: the chief, else the first worker, else the first.
const TaskData* reportingTask(const std::vector<TaskData>& tasks)
{
    const TaskData* found = nullptr;
    for (const auto& t : tasks)
    {
        if (t.task.startsWith("chief:"))
            return &t;
        if (!found && t.task.startsWith("worker:"))
            found = &t;
    }
    return found ? found : (tasks.empty() ? nullptr : &tasks.front());
}

double meanY(const Series& s)
{
    double sum = 0;
    for (int64_t i = 0; i < s.size(); ++i)
        sum += s.y(i);
    return s.empty() ? 0 : sum / double(s.size());
}

RunStatus statusOf(RunOutcome outcome)
{
    switch (outcome) {
    case RunOutcome::Completed: return RunStatus::Completed;
    case RunOutcome::Stopped: return RunStatus::Stopped;
    case RunOutcome::Running: return RunStatus::Running;
    case RunOutcome::None:
    case RunOutcome::Failed: return RunStatus::Failed;
    }
    return RunStatus::Failed;
}

} // namespace

RunEnd runEndFromStore(RunOutcome outcome, const MetricsStore& store, double wallSeconds)
{
    RunEnd end;
    end.status = statusOf(outcome);
    end.wallSeconds = wallSeconds;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        QStringList errors;
        for (const TaskData* t : throughputTasks(tasks))
            end.samplesPerSec += meanY(t->samplesPerSec);
        for (const auto& t : tasks) {
            if (isTrainingTask(t.task))
                end.steps = std::max(end.steps, qint64(t.step));
            if (t.state == TaskState::Failed)
                errors << QStringLiteral("%1: %2").arg(t.task, t.error);
            else if (t.state != TaskState::Completed && t.state != TaskState::Stopped)
                errors << QStringLiteral("%1: ended without reporting how (exit status %2)").arg(t.task).arg(t.exitCode);
        }
        end.error = errors.join('\n');
        Json metrics = Json::object();
        if (const TaskData* t = reportingTask(tasks)) {
            if (t->done.is_object()) {
                for (const char* split : {"train", "validation", "test"})
                    if (t->done.contains(split) && t->done[split].is_object())
                        metrics[split] = t->done[split];
            } else if (!t->epochs.empty()) {
                metrics["train"] = t->epochs.back().train;
                if (t->epochs.back().validation.is_object())
                    metrics["validation"] = t->epochs.back().validation;
            }
        }
        end.metrics = jsonText(metrics);
    });
    return end;
}

RunRecorder::RunRecorder(RunHistory* history, const QString& source) : m_history(history), m_source(source) {}

bool RunRecorder::recordStart(const Json& experiment, const Validation& validation, const QString& runDir,
                              const QStringList& tasks, const QStringList& hosts, QString* error)
{
    m_runId = 0;
    m_open = false;
    m_startedMs = QDateTime::currentMSecsSinceEpoch();
    Json taskList = Json::array();
    QStringList distinct;
    for (qsizetype i = 0; i < tasks.size(); ++i) {
        const QString host = i < hosts.size() ? hosts[i] : QString();
        taskList.push_back({{"task", tasks[i].toStdString()}, {"host", host.toStdString()}});
        if (!distinct.contains(host))
            distinct << host;
    }

    RunRecord record;
    record.name = QString::fromStdString(experiment.value("name", std::string("experiment")));
    record.experiment = jsonText(experiment);
    record.strategy = validation.strategy;
    record.replicas = validation.replicas;
    record.tasks = jsonText(taskList);
    record.hosts = distinct.join(QStringLiteral(", "));
    record.source = m_source;
    record.startedAt = QDateTime::currentSecsSinceEpoch();
    record.status = RunStatus::Running;
    record.runDir = runDir;
    if (!m_history->insertRun(record, error))
        return false;
    m_runId = record.id;
    m_open = true;
    return true;
}

void RunRecorder::resume(const RunRecord& record)
{
    m_runId = record.id;
    m_open = record.status == RunStatus::Running || record.status == RunStatus::Interrupted;
    m_startedMs = record.startedAt * 1000;
}

bool RunRecorder::recordBatchJob(const QString& account, QString* error)
{
    return !m_open || m_history->setBatchJob(m_runId, account, error);
}

bool RunRecorder::recordEnd(RunOutcome outcome, const MetricsStore& store, QString* error)
{
    if (!m_open)
        return true;
    m_open = false;
    const double wall = double(QDateTime::currentMSecsSinceEpoch() - m_startedMs) / 1000.0;
    return m_history->finishRun(m_runId, runEndFromStore(outcome, store, wall), error);
}

} // namespace strata::app
