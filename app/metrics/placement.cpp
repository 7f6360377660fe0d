#include "app/metrics/placement.h"

#include "app/metrics/job_roles.h"
#include "app/metrics/lost_tasks.h"
#include "app/metrics/display_text.h"
#include "app/metrics/task_roles.h"

#include <QCoreApplication>

#include <algorithm>

namespace strata::app {

namespace {
QString q(const Json& j, const char* key, const std::string& fallback = {})
{
    return QString::fromStdString(j.is_object() ? j.value(key, fallback) : fallback);
}

// Fields read as the store reads them: a value of the wrong type is absent.
qint64 integer(const Json& j, const char* key, qint64 fallback = 0)
{
    const auto it = j.is_object() ? j.find(key) : j.end();
    return it != j.end() ? integerOf(*it).value_or(fallback) : fallback;
}

Json array(const Json& j, const char* key)
{
    const auto it = j.is_object() ? j.find(key) : j.end();
    return it != j.end() && it->is_array() ? *it : Json::array();
}

Json object(const Json& j, const char* key)
{
    const auto it = j.is_object() ? j.find(key) : j.end();
    return it != j.end() && it->is_object() ? *it : Json::object();
}

// A ps task's updates applied: its `done` total, else its latest `ps` event's.
qint64 updatesApplied(const TaskData& t)
{
    return std::max(integer(t.done, "updates"), integer(t.ps, "updates"));
}

double number(const Json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() ? numberOf(*it).value_or(0) : 0;
}

QStringList strings(const Json& j, const char* key)
{
    QStringList out;
    for (const auto& s : array(j, key))
        if (s.is_string())
            out << QString::fromStdString(s.get<std::string>());
    return out;
}

QString shapeText(const Json& shape)
{
    QStringList dims;
    for (const auto& d : shape)
        dims << QString::number(integerOf(d).value_or(0));
    return "(" + dims.join(", ") + (dims.size() == 1 ? ",)" : ")");
}

// "FixedShards (num_shards 2)", "none"; empty when the placement says nothing.
QString partitionerText(const Json& partitioner)
{
    if (!partitioner.is_object())
        return {};
    QStringList fields;
    for (const auto& [key, value] : partitioner.items())
        if (key != "type" && value.is_number())
            fields << QStringLiteral("%1 %2").arg(QString::fromStdString(key)).arg(integerOf(value).value_or(0));
    const QString type = q(partitioner, "type");
    return fields.isEmpty() ? type : QStringLiteral("%1 (%2)").arg(type, fields.join(", "));
}

// Where the task runs: its node and host as the cluster names them (set by the launcher, or
// read from nodes.json), else what its engine calls the machine.
QString placeOf(const TaskData& t)
{
    const QString place = placeText(t.node, t.host);
    return place.isEmpty() ? q(t.hello, "host") : place;
}
} // namespace

TaskPlacement placementOf(const QString& task, const QString& place, const QString& host, const Json& p)
{
    TaskPlacement tp;
    tp.task = task;
    tp.place = place;
    tp.host = host;
    tp.strategy = q(p, "strategy");
    tp.requestedStrategy = q(p, "requested_strategy");
    for (const auto& r : array(p, "replicas"))
        tp.replicas.push_back({int(integer(r, "replica")), q(r, "device"), int(integer(r, "threads", 1))});
    for (const auto& v : array(p, "variables")) {
        PlacementVariable pv{q(v, "name"), shapeText(array(v, "shape")), integer(v, "bytes"), strings(v, "devices"), {}};
        for (const auto& shard : array(v, "shards")) {
            if (!shard.is_object())
                continue;
            const Json rows = array(shard, "rows");
            pv.shards.push_back({q(shard, "name"), q(shard, "ps"), rows.size() == 2 ? integerOf(rows[0]).value_or(0) : 0,
                                 rows.size() == 2 ? integerOf(rows[1]).value_or(0) : 0, integer(shard, "bytes")});
        }
        tp.variables.push_back(pv);
    }
    const Json reduction = object(p, "reduction");
    tp.reduction = q(reduction, "algorithm");
    tp.crossDeviceOps = q(reduction, "cross_device_ops");
    tp.reductionBytes = integer(reduction, "bytes_per_step");
    tp.bucketBytes = integer(reduction, "bucket_bytes");
    tp.buckets = integer(reduction, "buckets");
    tp.jobTasks = strings(p, "tasks");
    tp.totalReplicas = integer(p, "total_replicas");
    tp.globalBatch = integer(p, "global_batch_size");
    tp.perReplicaBatch = integer(p, "per_replica_batch_size");
    const Json lr = object(p, "learning_rate");
    tp.learningRate = number(lr, "base");
    tp.scaledLearningRate = number(lr, "scaled");
    tp.scalingRule = q(lr, "rule");
    tp.psTasks = strings(p, "ps_tasks");
    tp.workerTasks = strings(p, "worker_tasks");
    tp.partitioner = partitionerText(object(p, "partitioner"));
    tp.maxStaleness = integer(p, "max_staleness", -1);
    tp.parameterDevice = q(p, "parameter_device");
    return tp;
}

QList<TaskPlacement> placements(const MetricsStore& store)
{
    QList<TaskPlacement> out;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        for (const auto& t : tasks)
            if (t.placement.is_object())
                out.push_back(placementOf(t.task, placeOf(t), q(t.hello, "host"), t.placement));
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
            // A ps task trains no steps of its own: its count is the updates it has applied.
            if (isParameterServerTask(t.task))
                s.step = updatesApplied(t);
            s.error = t.error;
            s.exitCode = t.exitCode;
            s.crashed = t.crashed;
            s.exited = t.exited;
            s.unreachable = t.unreachable;
            s.unreachableWhy = t.unreachableWhy;
            if (const StepEvent::Worker* view = coordinatorView(tasks, t.task))
                s.coordinatorState = view->state;
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
    if (task.lost)
        return QCoreApplication::translate("strata", "lost");
    if (task.state == TaskState::Running && task.coordinatorState == QLatin1String("waiting"))
        return QCoreApplication::translate("strata", "waiting (staleness bound)");
    return stateName(task.state);
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
