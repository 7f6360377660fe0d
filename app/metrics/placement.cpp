#include "app/metrics/placement.h"

#include "app/metrics/lost_tasks.h"
#include "app/metrics/task_places.h"

#include <QCoreApplication>

#include <algorithm>

namespace strata::app {

namespace {
QString q(const Json& j, const char* key, const std::string& fallback = {})
{
    return QString::fromStdString(j.is_object() ? j.value(key, fallback) : fallback);
}

QString shapeText(const Json& shape)
{
    QStringList dims;
    for (const auto& d : shape)
        dims << QString::number(d.get<qint64>());
    return "(" + dims.join(", ") + (dims.size() == 1 ? ",)" : ")");
}

// Where the task runs: its node and host as the cluster names them (set by the launcher, or
// read from nodes.json), else what its engine calls the machine.
QString placeOf(const TaskData& t)
{
    const QString place = placeText(t.node, t.host);
    return place.isEmpty() ? q(t.hello, "host") : place;
}
} // namespace

QList<TaskPlacement> placements(const MetricsStore& store)
{
    QList<TaskPlacement> out;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        for (const auto& t : tasks) {
            const Json& p = t.placement;
            if (!p.is_object())
                continue;
            TaskPlacement tp;
            tp.task = t.task;
            tp.place = placeOf(t);
            tp.host = q(t.hello, "host");
            tp.strategy = q(p, "strategy");
            tp.requestedStrategy = q(p, "requested_strategy");
            for (const auto& r : p.value("replicas", Json::array()))
                tp.replicas.push_back({r.value("replica", 0), q(r, "device"), r.value("threads", 1)});
            for (const auto& v : p.value("variables", Json::array())) {
                PlacementVariable pv{q(v, "name"), shapeText(v.value("shape", Json::array())), v.value("bytes", qint64{0}), {}};
                for (const auto& d : v.value("devices", Json::array()))
                    pv.devices << QString::fromStdString(d.get<std::string>());
                tp.variables.push_back(pv);
            }
            const Json reduction = p.value("reduction", Json::object());
            tp.reduction = q(reduction, "algorithm");
            tp.reductionBytes = reduction.value("bytes_per_step", qint64{0});
            tp.bucketBytes = reduction.value("bucket_bytes", qint64{0});
            tp.buckets = reduction.value("buckets", qint64{0});
            for (const auto& name : p.value("tasks", Json::array()))
                if (name.is_string())
                    tp.jobTasks << QString::fromStdString(name.get<std::string>());
            tp.totalReplicas = p.value("total_replicas", qint64{0});
            tp.globalBatch = p.value("global_batch_size", qint64{0});
            tp.perReplicaBatch = p.value("per_replica_batch_size", qint64{0});
            const Json lr = p.value("learning_rate", Json::object());
            tp.learningRate = lr.value("base", 0.0);
            tp.scaledLearningRate = lr.value("scaled", 0.0);
            tp.scalingRule = q(lr, "rule");
            out.push_back(tp);
        }
    });
    return out;
}

QList<TaskSummary> taskSummaries(const MetricsStore& store)
{
    QList<TaskSummary> out;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        const QList<LostTask> lost = lostTasks(tasks);
        for (const auto& t : tasks) {
            TaskSummary s;
            s.task = t.task;
            s.place = placeOf(t);
            s.state = t.state;
            s.step = t.step;
            s.totalSteps = t.totalSteps;
            s.error = t.error;
            s.exitCode = t.exitCode;
            s.crashed = t.crashed;
            s.exited = t.exited;
            s.unreachable = t.unreachable;
            s.unreachableWhy = t.unreachableWhy;
            if (t.done.is_object() && t.done.contains("test")) {
                QStringList parts;
                for (const auto& [k, v] : t.done["test"].items())
                    parts << QStringLiteral("%1 %2").arg(QString::fromStdString(k)).arg(v.get<double>(), 0, 'f', 4);
                s.result = QCoreApplication::translate("strata", "test %1").arg(parts.join(", "));
            } else if (t.evaluations > 0) {
                QStringList parts;
                for (const auto& [name, series] : t.evaluation)
                    if (!series.empty())
                        parts << QStringLiteral("%1 %2").arg(name).arg(double(series.lastY()), 0, 'f', 4);
                s.result = QCoreApplication::translate("strata", "%n evaluation(s), last: %1", nullptr, t.evaluations)
                               .arg(parts.join(", "));
            }
            for (const LostTask& l : lost)
                if (l.task == t.task) {
                    s.lost = true;
                    s.lostReason = l.reason;
                }
            out.push_back(s);
        }
    });
    return out;
}

QString stateName(TaskState state)
{
    switch (state) {
    case TaskState::Starting: return QCoreApplication::translate("strata", "starting");
    case TaskState::Running: return QCoreApplication::translate("strata", "running");
    case TaskState::Completed: return QCoreApplication::translate("strata", "completed");
    case TaskState::Stopped: return QCoreApplication::translate("strata", "stopped");
    case TaskState::Failed: return QCoreApplication::translate("strata", "failed");
    }
    return {};
}

QString stateText(const TaskSummary& task)
{
    if (task.unreachable)
        return QCoreApplication::translate("strata", "unreachable");
    return task.lost ? QCoreApplication::translate("strata", "lost") : stateName(task.state);
}

QList<LogEntry> logEntries(const MetricsStore& store, int from)
{
    QList<LogEntry> out;
    store.read([&](const std::vector<TaskData>&, const std::vector<LogEntry>& log) {
        for (size_t i = static_cast<size_t>(std::max(from, 0)); i < log.size(); ++i)
            out.push_back(log[i]);
    });
    return out;
}

} // namespace strata::app
