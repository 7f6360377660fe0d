#include "app/compare/strategy_sweep.h"

#include "app/experiment/catalogs.h"
#include "app/experiment/cluster_editing.h"

#include <QRegularExpression>

namespace strata::app {

QString sweepLabel(const Json& strategy, const Json& cluster)
{
    const QString type = QString::fromStdString(strategy.value("type", std::string("OneDevice")));
    if (cluster.is_object()) {
        const schema::ClusterSpec c = readableCluster(Json{{"cluster", cluster}});
        const int64_t workers = schema::taskCount(c, "worker") + (type == "ParameterServer" ? 0 : schema::taskCount(c, "chief"));
        return QStringLiteral("%1 %2 workers").arg(type).arg(workers);
    }
    for (const char* key : {"devices", "compute_devices"}) {
        const auto it = strategy.find(key);
        if (it != strategy.end() && it->is_array() && it->size() > 1)
            return QStringLiteral("%1 x%2").arg(type).arg(it->size());
    }
    return type;
}

namespace {
// A job on this machine: `tasks` as (type, count), each on automatic ports.
Json localCluster(const std::vector<std::pair<std::string, int>>& tasks)
{
    schema::ClusterSpec cluster; // this machine ("local")
    cluster.tasks.clear();
    for (const auto& [type, count] : tasks)
        if (count > 0)
            cluster.tasks.push_back({type, cluster.nodes.front().name, count, 0});
    return schema::clusterToJson(cluster);
}
} // namespace

SweepVariant sweepVariant(const QString& type, int replicas, int hostCpus)
{
    Json strategy{{"type", type.toStdString()}};
    replicas = std::max(replicas, 1);
    Json devices = Json::array();
    for (int i = 0; i < replicas; ++i)
        devices.push_back("cpu:" + std::to_string(i));
    Json cluster;
    if (type == "OneDevice")
        strategy["device"] = "cpu:0";
    else if (type == "Mirrored")
        strategy["devices"] = devices;
    else if (type == "CentralStorage") {
        strategy["compute_devices"] = devices;
        strategy["parameter_device"] = "cpu:0";
    } else if (type == "MultiWorkerMirrored")
        cluster = localCluster({{"chief", 1}, {"worker", replicas - 1}});
    else if (type == "ParameterServer")
        cluster = localCluster({{"chief", 1}, {"worker", replicas}, {"ps", 1}});
    if ((type == "Mirrored" || type == "CentralStorage") && replicas > hostCpus)
        strategy["logical_cpu_devices"] = replicas;
    return {sweepLabel(strategy, cluster), strategy, cluster};
}

StrategySweep::StrategySweep(RunController* run, QObject* parent) : QObject(parent), m_run(run)
{
    connect(m_run, &RunController::finished, this, [this] {
        if (m_running)
            onRunFinished();
    });
    // A variant on remote nodes that fail their check starts nothing: the sweep ends there.
    connect(m_run, &RunController::launchFailed, this, [this](const QString& error) {
        if (m_running)
            end(m_stopping, tr("%1 could not start: %2").arg(m_variants[m_current].label, error));
    });
}

Json StrategySweep::variantExperiment(const Json& base, const SweepVariant& variant)
{
    Json e = base;
    e["strategy"] = variant.strategy;
    const std::string name = base.value("name", std::string("experiment"));
    // The label as a file-name part: "Mirrored x2" -> "mirrored-x2".
    const QString suffix = variant.label.toLower().replace(QRegularExpression("[^a-z0-9]+"), "-");
    e["name"] = name + "-" + suffix.toStdString();
    if (variant.cluster.is_object()) {
        e["cluster"] = variant.cluster;
        return e;
    }
    // A sweep from a multi-worker experiment: the single-process variants train in its first
    // chief or worker task (one process), where the cluster puts it.
    const std::string type = variant.strategy.value("type", std::string());
    if (!isMultiProcess(type) && e.contains("cluster") &&
        e["cluster"].contains("tasks") && e["cluster"]["tasks"].is_array()) {
        for (const Json& task : e["cluster"]["tasks"]) {
            const std::string taskType = task.is_object() ? task.value("type", std::string()) : std::string();
            if (taskType != "chief" && taskType != "worker")
                continue;
            Json one{{"type", "worker"}, {"node", task.value("node", Json())}, {"count", 1}};
            if (task.contains("port"))
                one["port"] = task["port"];
            e["cluster"]["tasks"] = Json::array({one});
            break;
        }
    }
    return e;
}

bool StrategySweep::start(const ExperimentDocument& base, const QList<SweepVariant>& variants,
                          const QString& enginePath, QString* error)
{
    if (m_running || m_run->isRunning()) {
        *error = tr("A run is already in progress.");
        return false;
    }
    if (variants.isEmpty()) {
        *error = tr("Choose at least one strategy to run.");
        return false;
    }
    // Every variant must be runnable before the first starts: a sweep that fails on its third
    // strategy after an hour is a sweep the user has to redo.
    const Json launched = base.forLaunch();
    QList<Json> experiments;
    QStringList problems;
    for (const SweepVariant& v : variants) {
        ExperimentDocument doc;
        doc.setHost(base.host());
        doc.replace(variantExperiment(launched, v), v.label);
        for (const Problem& p : doc.validation().problems)
            problems << QStringLiteral("%1: %2").arg(v.label, p.text());
        experiments << doc.json();
    }
    if (!problems.isEmpty()) {
        *error = tr("The sweep cannot start:\n%1").arg(problems.join('\n'));
        return false;
    }
    m_variants = variants;
    m_experiments = experiments;
    m_finished.clear();
    m_enginePath = enginePath;
    m_host = base.host();
    m_current = 0;
    m_stopping = false;
    m_ownerSource = m_run->historySource();
    if (m_run->history())
        m_run->setHistory(m_run->history(), QStringLiteral("sweep"));
    m_running = launchCurrent(error);
    if (!m_running)
        restoreSource();
    return m_running;
}

void StrategySweep::restoreSource()
{
    if (m_run->history())
        m_run->setHistory(m_run->history(), m_ownerSource);
}

void StrategySweep::end(bool stopped, const QString& error)
{
    m_running = false;
    restoreSource();
    Q_EMIT finished(stopped, error);
}

bool StrategySweep::launchCurrent(QString* error)
{
    ExperimentDocument doc;
    doc.setHost(m_host);
    doc.replace(m_experiments[m_current], m_variants[m_current].label);
    QString why;
    if (!m_run->launch(doc, m_enginePath, {}, &why)) {
        *error = tr("%1 could not start: %2").arg(m_variants[m_current].label, why);
        return false;
    }
    Q_EMIT variantStarted(m_current);
    return true;
}

void StrategySweep::onRunFinished()
{
    m_finished.append({m_variants[m_current].label, m_run->runDir(), m_run->historyId(), m_run->outcome()});
    Q_EMIT variantFinished(m_current);
    if (m_stopping || m_current + 1 >= m_variants.size()) {
        end(m_stopping, {});
        return;
    }
    ++m_current;
    QString error;
    if (!launchCurrent(&error))
        end(false, error);
}

void StrategySweep::stop()
{
    if (!m_running)
        return;
    m_stopping = true;
    m_run->stop();
}

} // namespace strata::app
