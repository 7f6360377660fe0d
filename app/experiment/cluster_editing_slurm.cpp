// ClusterEditing's Slurm job: cluster.slurm read as written, its defaults, one edit per field.

#include "app/experiment/cluster_editing.h"

#include <algorithm>
#include <climits>
#include <map>

namespace strata::app {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

int clamped(int64_t value) { return int(std::clamp<int64_t>(value, INT_MIN, INT_MAX)); }

// `key` of `object` as written when it is an integer (a wrong one too), else `fallback`.
int writtenInteger(const Json& object, const char* key, int64_t fallback)
{
    const Json value = object.is_object() ? object.value(key, Json()) : Json();
    return clamped(value.is_number_integer() ? value.get<int64_t>() : fallback);
}

const Json* slurmSection(const Json& document)
{
    const Json* cluster = document.is_object() && document.contains("cluster") ? &document["cluster"] : nullptr;
    return cluster && cluster->is_object() && cluster->contains("slurm") && !(*cluster)["slurm"].is_null()
               ? &(*cluster)["slurm"]
               : nullptr;
}

// cluster.slurm as the engine writes it.
Json slurmJson(const schema::SlurmSettings& settings)
{
    schema::ClusterSpec cluster;
    cluster.slurm = settings;
    return schema::clusterToJson(cluster)["slurm"];
}

} // namespace

bool ClusterEditing::isSlurmJob() const { return slurmSection(m_document.json()) != nullptr; }

schema::SlurmSettings ClusterEditing::slurmDefaults() const
{
    const schema::ClusterSpec cluster = readableCluster(m_document.json());
    schema::SlurmSettings s;
    // The tasks per node that has tasks, and per type.
    std::map<std::string, int64_t> perNode, perType;
    int64_t total = 0;
    for (const schema::TaskAssignment& t : cluster.tasks) {
        if (t.count < 1)
            continue;
        perNode[t.node] += t.count;
        perType[t.type] += t.count;
        total += t.count;
    }
    if (total < 1)
        return s;
    const int64_t first = perNode.begin()->second;
    const bool even = std::all_of(perNode.begin(), perNode.end(), [first](const auto& n) { return n.second == first; });
    s.nodes = even ? int64_t(perNode.size()) : total;
    s.tasksPerNode = even ? first : 1;
    if (!(perType.size() == 1 && perType.count("worker")))
        s.jobs = perType;
    return s;
}

SlurmJob ClusterEditing::slurmJob() const
{
    const Json* written = slurmSection(m_document.json());
    const schema::SlurmSettings s =
        written ? readableCluster(m_document.json()).slurm.value_or(schema::SlurmSettings{}) : slurmDefaults();
    const Json object = written ? *written : Json();
    SlurmJob job;
    for (const auto& [type, count] : s.jobs)
        job.jobs[q(type)] = clamped(count);
    if (const Json jobs = object.is_object() ? object.value("jobs", Json()) : Json(); jobs.is_object())
        for (const auto& [type, count] : jobs.items())
            if (job.jobs.contains(q(type)) && count.is_number_integer())
                job.jobs[q(type)] = clamped(count.get<int64_t>());
    job.login = q(s.login);
    job.partition = q(s.partition);
    job.nodes = writtenInteger(object, "nodes", s.nodes);
    job.tasksPerNode = writtenInteger(object, "tasks_per_node", s.tasksPerNode);
    job.cpusPerTask = writtenInteger(object, "cpus_per_task", s.cpusPerTask);
    job.gpusPerTask = writtenInteger(object, "gpus_per_task", s.gpusPerTask);
    job.timeLimit = q(s.timeLimit);
    job.account = q(s.account);
    job.qos = q(s.qos);
    // Every string as written: one that is no option ("mem=16G") is shown for validation to mark.
    if (const Json extra = object.is_object() ? object.value("extra_sbatch", Json()) : Json(); extra.is_array()) {
        for (const Json& option : extra)
            if (option.is_string())
                job.extraSbatch << q(option.get<std::string>());
    } else {
        for (const std::string& option : s.extraSbatch)
            job.extraSbatch << q(option);
    }
    job.requeue = s.requeue;
    job.signalSeconds = writtenInteger(object, "signal_seconds", s.signalSeconds);
    return job;
}

schema::SlurmSettings ClusterEditing::slurmSettings() const
{
    return readableCluster(m_document.json()).slurm.value_or(slurmDefaults());
}

void ClusterEditing::setSlurmJob(bool slurm)
{
    if (slurm == isSlurmJob())
        return;
    Json cluster = editable();
    if (slurm)
        cluster["slurm"] = slurmJson(slurmDefaults());
    else
        cluster.erase("slurm");
    commit(cluster, slurm ? tr("Run the tasks as a Slurm job") : tr("Run the tasks on these machines"));
}

void ClusterEditing::setSlurmField(const char* key, const Json& value, const QString& label)
{
    Json cluster = editable();
    if (!cluster.contains("slurm") || !cluster["slurm"].is_object())
        cluster["slurm"] = slurmJson(slurmDefaults());
    cluster["slurm"][key] = value;
    commit(cluster, label);
}

void ClusterEditing::setSlurmLogin(const QString& login)
{
    setSlurmField("login", login.trimmed().toStdString(), tr("Submit the Slurm job from %1").arg(login.trimmed()));
}

void ClusterEditing::setSlurmPartition(const QString& partition)
{
    setSlurmField("partition", partition.trimmed().toStdString(), tr("Set the Slurm partition"));
}

void ClusterEditing::setSlurmNodes(int nodes) { setSlurmField("nodes", nodes, tr("Set the Slurm nodes to %1").arg(nodes)); }

void ClusterEditing::setSlurmTasksPerNode(int tasks)
{
    setSlurmField("tasks_per_node", tasks, tr("Set the Slurm tasks per node to %1").arg(tasks));
}

void ClusterEditing::setSlurmCpusPerTask(int cpus)
{
    setSlurmField("cpus_per_task", cpus, tr("Set the CPUs per Slurm task to %1").arg(cpus));
}

void ClusterEditing::setSlurmGpusPerTask(int gpus)
{
    setSlurmField("gpus_per_task", gpus, tr("Set the GPUs per Slurm task to %1").arg(gpus));
}

void ClusterEditing::setSlurmTimeLimit(const QString& limit)
{
    setSlurmField("time_limit", limit.trimmed().toStdString(), tr("Set the Slurm time limit"));
}

void ClusterEditing::setSlurmAccount(const QString& account)
{
    setSlurmField("account", account.trimmed().toStdString(), tr("Set the Slurm account"));
}

void ClusterEditing::setSlurmQos(const QString& qos)
{
    setSlurmField("qos", qos.trimmed().toStdString(), tr("Set the Slurm QoS"));
}

void ClusterEditing::setSlurmExtraSbatch(const QStringList& options)
{
    Json list = Json::array();
    for (const QString& option : options)
        if (const QString line = option.trimmed(); !line.isEmpty())
            list.push_back(line.toStdString());
    setSlurmField("extra_sbatch", list, tr("Edit the extra #SBATCH options"));
}

void ClusterEditing::setSlurmRequeue(bool requeue)
{
    setSlurmField("requeue", requeue, requeue ? tr("Requeue the Slurm job when preempted")
                                              : tr("Do not requeue the Slurm job"));
}

void ClusterEditing::setSlurmSignalSeconds(int seconds)
{
    setSlurmField("signal_seconds", seconds, tr("Warn the Slurm job %1 s before its end").arg(seconds));
}

void ClusterEditing::setSlurmJobCount(const QString& type, int count)
{
    const SlurmJob job = slurmJob();
    QMap<QString, int> jobs = job.jobs;
    if (jobs.isEmpty())
        jobs[QStringLiteral("worker")] = job.nodes * job.tasksPerNode;
    if (count > 0)
        jobs[type] = count;
    else
        jobs.remove(type);
    const QString label = tr("Set the Slurm job's %1 tasks to %2").arg(type).arg(count);
    Json cluster = editable();
    if (!cluster.contains("slurm") || !cluster["slurm"].is_object())
        cluster["slurm"] = slurmJson(slurmDefaults());
    Json& slurm = cluster["slurm"];
    // Workers only, as many as the job has tasks: what no jobs say.
    const bool everyTaskAWorker = jobs.size() == 1 && jobs.contains(QStringLiteral("worker")) &&
                                  jobs.value(QStringLiteral("worker")) == job.nodes * job.tasksPerNode;
    if (jobs.isEmpty() || everyTaskAWorker) {
        slurm.erase("jobs");
    } else {
        Json counts = Json::object();
        for (const QString& t : taskTypes()) // TensorFlow's order
            if (jobs.contains(t))
                counts[t.toStdString()] = jobs.value(t);
        for (auto it = jobs.cbegin(); it != jobs.cend(); ++it) // a type written by hand, kept
            if (!counts.contains(it.key().toStdString()))
                counts[it.key().toStdString()] = it.value();
        slurm["jobs"] = counts;
    }
    commit(cluster, label);
}

QStringList ClusterEditing::slurmTasks() const
{
    const SlurmJob job = slurmJob();
    QMap<QString, int> jobs = job.jobs;
    if (jobs.isEmpty())
        jobs[QStringLiteral("worker")] = job.nodes * job.tasksPerNode;
    QStringList out;
    for (const QString& type : taskTypes())
        for (int i = 0; i < jobs.value(type); ++i)
            out << QStringLiteral("%1:%2").arg(type).arg(i);
    return out;
}

} // namespace strata::app
