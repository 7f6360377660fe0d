#include "app/launch/launch_plan.h"

#include "app/experiment/catalogs.h"
#include "app/experiment/cluster_editing.h"
#include "app/metrics/task_roles.h"

#include "strata/core/error.h"
#include "strata/schema/experiment.h"

#include <QDir>
#include <QFileInfo>
#include <QHostAddress>
#include <QTcpServer>

#include <algorithm>
#include <map>

namespace strata::app {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

bool isLocal(const schema::NodeSpec& node) { return node.auth == "none"; }

// The host's address for a listen test: localhost is 127.0.0.1, as the engine binds it.
QHostAddress listenAddress(const QString& host)
{
    if (host == QLatin1String("localhost"))
        return QHostAddress::LocalHost;
    QHostAddress address(host);
    return address.isNull() ? QHostAddress::Any : address;
}

// A Slurm job's tasks: its jobs' (every task a worker when none are named), in TensorFlow's
// type order; Slurm places them, so no node, host or port yet. Submitted from a login node
// over SSH, they use its engine and its work directory, as its own tasks would.
LaunchPlan planSlurm(const schema::ClusterSpec& cluster, const std::string& strategy, const QString& localEngine,
                     const QString& runDir)
{
    const schema::SlurmSettings& slurm = *cluster.slurm;
    QString engine = localEngine, jobRunDir = runDir;
    for (const schema::NodeSpec& n : cluster.nodes)
        if (n.name == slurm.login && !isLocal(n)) {
            engine = n.engine.empty() ? kDefaultRemoteEngine : q(n.engine);
            jobRunDir = QDir::cleanPath((n.workDir.empty() ? kDefaultWorkDir : q(n.workDir)) + QLatin1Char('/') +
                                        QFileInfo(runDir).fileName());
        }
    std::map<std::string, int64_t> jobs = slurm.jobs;
    if (jobs.empty())
        jobs["worker"] = slurm.nodes * slurm.tasksPerNode;
    LaunchPlan plan;
    for (const std::string& type : schema::taskTypes())
        for (int64_t i = 0; i < (jobs.count(type) ? jobs[type] : 0); ++i) {
            const QString name = q(type) + QLatin1Char(':') + QString::number(i);
            if (!startsUnder(name, strategy))
                continue;
            PlannedTask t;
            t.name = name;
            t.trains = isTrainingTask(name);
            t.endsJob = endsJob(name, strategy);
            t.engine = engine;
            t.runDir = jobRunDir;
            t.slurm = true;
            plan.tasks.push_back(std::move(t));
        }
    return plan;
}

} // namespace

const schema::NodeSpec* LaunchPlan::remoteNode(const QString& name) const
{
    for (const schema::NodeSpec& n : remoteNodes)
        if (q(n.name) == name)
            return &n;
    return nullptr;
}

std::string strategyType(const Json& experiment)
{
    const auto it = experiment.find("strategy");
    if (it == experiment.end())
        return {};
    if (it->is_string())
        return it->get<std::string>();
    if (it->is_object() && it->contains("type") && (*it)["type"].is_string())
        return (*it)["type"].get<std::string>();
    return {};
}

bool startsUnder(const QString& task, const std::string& strategy)
{
    // Under the strategies of one process an evaluator is noted by validation, not started
    // (the training task evaluates); in a multi-process job it evaluates the chief's
    // checkpoints.
    return isTrainingTask(task) || (isMultiProcess(strategy) && isEvaluatorTask(task)) ||
           (strategy == "ParameterServer" && isParameterServerTask(task));
}

bool endsJob(const QString& task, const std::string& strategy)
{
    return strategy == "ParameterServer" ? isChiefTask(task) : isTrainingTask(task);
}

LaunchPlan planLaunch(const Json& experiment, const QString& localEngine, const QString& runDir)
{
    LaunchPlan plan;
    const schema::ClusterSpec cluster = readableCluster(experiment);
    const std::string strategy = strategyType(experiment);
    if (cluster.slurm)
        return planSlurm(cluster, strategy, localEngine, runDir);
    const QString runName = QFileInfo(runDir).fileName();
    for (const schema::TaskAddress& address : schema::taskAddresses(cluster)) {
        const QString name = q(address.name());
        if (!startsUnder(name, strategy))
            continue;
        const auto node = std::find_if(cluster.nodes.begin(), cluster.nodes.end(),
                                       [&](const schema::NodeSpec& n) { return n.name == address.node; });
        if (node == cluster.nodes.end())
            continue; // refused by validation
        PlannedTask t;
        t.name = name;
        t.trains = isTrainingTask(name);
        t.endsJob = endsJob(name, strategy);
        t.node = q(node->name);
        t.host = q(node->host);
        t.port = int(cluster.tasks[address.assignment].port == 0 ? 0 : address.port);
        t.remote = !isLocal(*node);
        if (t.remote) {
            t.engine = node->engine.empty() ? kDefaultRemoteEngine : q(node->engine);
            const QString workDir = node->workDir.empty() ? kDefaultWorkDir : q(node->workDir);
            t.runDir = QDir::cleanPath(workDir + QLatin1Char('/') + runName);
            if (!plan.remoteNode(t.node))
                plan.remoteNodes.push_back(*node);
        } else {
            t.engine = node->engine.empty() ? localEngine : q(node->engine);
            t.runDir = runDir;
        }
        plan.tasks.push_back(std::move(t));
    }
    return plan;
}

QList<HostPorts> portsByHost(const Json& experiment)
{
    QList<HostPorts> hosts;
    const schema::ClusterSpec cluster = readableCluster(experiment);
    const auto hostOf = [&](const std::string& node) {
        for (const schema::NodeSpec& n : cluster.nodes)
            if (n.name == node)
                return q(n.host);
        return QString();
    };
    for (const schema::TaskAssignment& a : cluster.tasks) {
        const QString host = hostOf(a.node);
        auto it = std::find_if(hosts.begin(), hosts.end(), [&](const HostPorts& h) { return h.host == host; });
        if (it == hosts.end())
            it = hosts.insert(hosts.end(), HostPorts{host, {}, 0});
        if (a.port == 0)
            it->automatic += int(a.count);
        else
            for (int64_t i = 0; i < a.count; ++i)
                it->explicitPorts << int(a.port + i);
    }
    return hosts;
}

bool resolveAutomaticPorts(Json& experiment, const FreePorts& freePorts, QString* error)
{
    if (!experiment.contains("cluster") || !experiment["cluster"].is_object()
        || !experiment["cluster"].contains("tasks"))
        experiment["cluster"] = schema::clusterToJson(readableCluster(experiment));
    const schema::ClusterSpec cluster = readableCluster(experiment);
    std::map<QString, QList<int>> available; // per host, the free ports not handed out yet
    for (const HostPorts& h : portsByHost(experiment)) {
        if (h.automatic == 0)
            continue;
        QList<int> ports = freePorts(h.host, h.automatic, h.explicitPorts);
        if (ports.size() < h.automatic) {
            *error = QObject::tr("no free port for %1 automatic task(s) on %2 (from %3 up)")
                         .arg(h.automatic)
                         .arg(h.host)
                         .arg(schema::kFirstAutomaticPort);
            return false;
        }
        available[h.host] = ports;
    }
    Json tasks = Json::array();
    for (const schema::TaskAssignment& a : cluster.tasks) {
        if (a.port != 0) {
            tasks.push_back(schema::taskToJson(a));
            continue;
        }
        QString host;
        for (const schema::NodeSpec& n : cluster.nodes)
            if (n.name == a.node)
                host = q(n.host);
        QList<int>& ports = available[host];
        // Consecutive ports keep the assignment whole; otherwise one task per entry, in order.
        schema::TaskAssignment run = a;
        run.count = 0;
        for (int64_t i = 0; i < a.count; ++i) {
            const int port = ports.takeFirst();
            if (run.count > 0 && port == run.port + run.count) {
                ++run.count;
                continue;
            }
            if (run.count > 0)
                tasks.push_back(schema::taskToJson(run));
            run.port = port;
            run.count = 1;
        }
        tasks.push_back(schema::taskToJson(run));
    }
    experiment["cluster"]["tasks"] = tasks;
    return true;
}

QList<int> freeLocalPorts(const QString& host, int count, const QList<int>& taken)
{
    QList<int> ports;
    const QHostAddress address = listenAddress(host);
    for (int port = int(schema::kFirstAutomaticPort); port <= 65535 && ports.size() < count; ++port) {
        if (taken.contains(port))
            continue;
        QTcpServer probe;
        if (probe.listen(address, quint16(port)))
            ports << port;
    }
    return ports;
}

QString shellQuote(const QString& text)
{
    if (!text.isEmpty() && std::all_of(text.begin(), text.end(), [](QChar c) {
            return c.isLetterOrNumber() || QStringLiteral("/._-:+=,@%").contains(c);
        }))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('\''), QLatin1String("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QByteArray remoteCommand(const QString& engine, const QStringList& args)
{
    QStringList words{shellQuote(engine)};
    for (const QString& a : args)
        words << shellQuote(a);
    return words.join(QLatin1Char(' ')).toUtf8();
}

} // namespace strata::app
