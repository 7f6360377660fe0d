#include "app/metrics/placement.h"

#include "app/metrics/job_roles.h"
#include "app/metrics/lost_tasks.h"
#include "app/metrics/stragglers.h"
#include "app/metrics/display_text.h"
#include "app/metrics/task_roles.h"

#include "strata/schema/events.h"

#include <QCoreApplication>
#include <QLocale>

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

// A ps task's updates applied: its `done` total, else its latest `ps` event's.
qint64 updatesApplied(const TaskData& t)
{
    return std::max(integer(t.done, "updates"), integer(t.ps, "updates"));
}

QString qs(const std::string& s) { return QString::fromStdString(s); }

QStringList strings(const std::vector<std::string>& list)
{
    QStringList out;
    for (const auto& s : list)
        out << qs(s);
    return out;
}

QString shapeText(const std::vector<int64_t>& shape)
{
    QStringList dims;
    for (const int64_t d : shape)
        dims << QString::number(d);
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

PlacementVariable variableOf(const schema::PlacementEvent::Variable& v)
{
    PlacementVariable pv{qs(v.name), shapeText(v.shape), v.bytes, strings(v.devices), {}};
    if (v.shards) // ParameterServer's partitioned variables
        for (const auto& shard : *v.shards)
            pv.shards.push_back({qs(shard.name), qs(shard.ps), shard.rowBegin, shard.rowEnd, shard.bytes});
    return pv;
}

} // namespace

QString placeOf(const TaskData& t)
{
    const QString place = placeText(t.node, t.host);
    return place.isEmpty() ? q(t.hello, "host") : place;
}

TaskPlacement placementOf(const QString& task, const QString& place, const QString& host, const Json& placement)
{
    const schema::PlacementEvent p = schema::readPlacementEvent(placement);
    TaskPlacement tp;
    tp.task = task;
    tp.place = place;
    tp.host = host;
    tp.strategy = qs(p.strategy);
    tp.requestedStrategy = qs(p.requestedStrategy.value_or(""));
    for (const auto& r : p.replicas)
        tp.replicas.push_back({int(r.replica), qs(r.device), int(r.threads)});
    for (const auto& v : p.variables)
        tp.variables.push_back(variableOf(v));
    tp.reduction = qs(p.reduction.algorithm);
    tp.crossDeviceOps = qs(p.reduction.crossDeviceOps.value_or(""));
    tp.reductionBytes = p.reduction.bytesPerStep;
    tp.bucketBytes = p.reduction.bucketBytes.value_or(0);
    tp.buckets = p.reduction.buckets.value_or(0);
    if (const auto& tuning = p.reduction.tuning) {
        tp.tuning = qs(tuning->state);
        tp.tunedAllReduce = qs(tuning->allReduce);
        tp.tunedSpeedup = tuning->speedup;
        tp.tuningCandidates = tuning->candidates;
        tp.tuningSteps = tuning->steps;
    }
    if (p.multiWorker) {
        tp.jobTasks = strings(p.multiWorker->tasks);
        tp.totalReplicas = p.multiWorker->totalReplicas;
    }
    tp.globalBatch = p.globalBatchSize;
    tp.perReplicaBatch = p.perReplicaBatchSize;
    tp.learningRate = p.learningRate.base;
    tp.scaledLearningRate = p.learningRate.scaled;
    tp.scalingRule = qs(p.learningRate.rule);
    tp.maxStaleness = -1; // asynchronous, or not ParameterServer
    if (const auto& ps = p.parameterServer) {
        tp.psTasks = strings(ps->psTasks);
        tp.workerTasks = strings(ps->workerTasks);
        tp.partitioner = partitionerText(ps->partitioner);
        tp.maxStaleness = ps->maxStaleness.value_or(-1);
    }
    tp.parameterDevice = qs(p.parameterDevice.value_or(""));
    return tp;
}

namespace {
QStringList gpuList(const QString& visibleGpus)
{
    QStringList ids;
    for (const QString& id : visibleGpus.split(QLatin1Char(',')))
        if (!id.trimmed().isEmpty())
            ids << id.trimmed();
    return ids;
}
} // namespace

QString deviceOnNode(const QString& device, const QString& visibleGpus)
{
    const QStringList ids = gpuList(visibleGpus);
    if (ids.isEmpty() || !device.startsWith(QLatin1String("gpu:")))
        return device;
    bool ok = false;
    const int index = device.mid(4).toInt(&ok);
    if (!ok || index < 0 || index >= ids.size())
        return device;
    return QCoreApplication::translate("strata", "%1 (GPU %2)").arg(device, ids[index]);
}

QString nodeGpusText(const QString& visibleGpus)
{
    const QStringList ids = gpuList(visibleGpus);
    if (ids.isEmpty())
        return {};
    return ids.size() == 1 ? QCoreApplication::translate("strata", "GPU %1 of the node").arg(ids.front())
                           : QCoreApplication::translate("strata", "GPUs %1 of the node").arg(ids.join(QLatin1Char(',')));
}

QString tuningText(const TaskPlacement& p)
{
    if (p.tuning == QLatin1String("tuning"))
        return (p.tuningCandidates == 1
                    ? QCoreApplication::translate("strata", "tuning buckets… (%1 candidate, first %2 steps)")
                    : QCoreApplication::translate("strata", "tuning buckets… (%1 candidates, first %2 steps)"))
            .arg(p.tuningCandidates)
            .arg(p.tuningSteps);
    if (p.tuning == QLatin1String("untuned"))
        return QCoreApplication::translate("strata", "buckets not tuned: the run ended within its %1 tuning steps")
            .arg(p.tuningSteps);
    if (p.tuning != QLatin1String("tuned"))
        return {};
    const QString size = QLocale().formattedDataSize(p.bucketBytes, 0, QLocale::DataSizeIecFormat);
    return p.tunedAllReduce.isEmpty()
               ? QCoreApplication::translate("strata", "bucket %1 (tuned)").arg(size)
               : QCoreApplication::translate("strata", "bucket %1, %2 (tuned)").arg(size, p.tunedAllReduce);
}

QList<TaskPlacement> placements(const MetricsStore& store)
{
    QList<TaskPlacement> out;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        for (const auto& t : tasks)
            if (t.placement.is_object()) {
                out.push_back(placementOf(t.task, placeOf(t), q(t.hello, "host"), t.placement));
                // A run that ended before the decision step never tunes.
                if (t.done.is_object() && out.back().tuning == QLatin1String("tuning"))
                    out.back().tuning = QStringLiteral("untuned");
                // A value of another type (or null: not set) is no list.
                if (t.hello.is_object() && t.hello.contains("cuda_visible_devices") &&
                    t.hello["cuda_visible_devices"].is_string())
                    out.back().visibleGpus = q(t.hello, "cuda_visible_devices");
            }
    });
    return out;
}

QList<TaskSummary> taskSummaries(const MetricsStore& store)
{
    QList<TaskSummary> out;
    const std::vector<Straggler> stragglers = store.stragglers();
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
            s.scheduled = t.scheduled;
            if (!t.stepMs.empty())
                s.stepMs = double(t.stepMs.lastY());
            if (!t.samplesPerSec.empty())
                s.samplesPerSec = double(t.samplesPerSec.lastY());
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
            QStringList stretches;
            for (const Straggler& straggler : stragglers)
                if (straggler.task == t.task) {
                    stretches << stretchText(straggler);
                    s.straggling = !straggler.recovered;
                }
            s.straggler = stretches.join('\n');
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
    if (!task.scheduled.isEmpty() && !task.exited)
        return task.scheduled;
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
