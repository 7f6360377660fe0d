#include "app/experiment/cluster_editing.h"

#include "app/experiment/catalogs.h"

#include "strata/core/error.h"
#include "strata/schema/experiment.h"

#include <QSaveFile>

#include <algorithm>
#include <climits>

namespace strata::app {

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

bool fail(QString* error, const QString& message)
{
    if (error)
        *error = message;
    return false;
}

ClusterNode toNode(const schema::NodeSpec& n)
{
    return {q(n.name), q(n.host), static_cast<int>(n.sshPort), q(n.user), q(n.auth), q(n.keyFile), q(n.engine),
            q(n.workDir)};
}

Json nodeJson(const ClusterNode& n)
{
    return schema::nodeToJson({n.name.toStdString(), n.host.toStdString(), n.sshPort, n.user.toStdString(),
                             n.auth.toStdString(), n.keyFile.toStdString(), n.engine.toStdString(),
                             n.workDir.toStdString()});
}

Json assignmentJson(const ClusterTaskAssignment& a)
{
    return schema::taskToJson({a.type.toStdString(), a.node.toStdString(), a.count, a.port});
}

// The `name` of a list element, if it has one.
std::string nameOf(const Json& element)
{
    return element.is_object() && element.contains("name") && element["name"].is_string()
               ? element["name"].get<std::string>()
               : std::string();
}

bool assignedTo(const Json& task, const std::string& node)
{
    return task.is_object() && task.contains("node") && task["node"] == node;
}

bool inRange(int row, const Json& list) { return row >= 0 && row < static_cast<int>(list.size()); }

// The strategy's type, also when written short ("strategy": "Mirrored"); the engine's default when absent.
QString strategyOf(const Json& document)
{
    const Json strategy = document.is_object() ? document.value("strategy", Json()) : Json();
    const Json type = strategy.is_object() ? strategy.value("type", Json()) : strategy;
    return type.is_string() ? q(type.get<std::string>()) : fieldDefault("/strategy/type").toString();
}

// `key` of element `index` of `list` as written, when it is an integer (a wrong one too).
int writtenInteger(const Json& list, qsizetype index, const char* key, int fallback)
{
    if (!list.is_array() || index >= qsizetype(list.size()) || !list[size_t(index)].is_object())
        return fallback;
    const Json value = list[size_t(index)].value(key, Json());
    return value.is_number_integer() ? int(std::clamp<int64_t>(value.get<int64_t>(), INT_MIN, INT_MAX)) : fallback;
}

// The document's `cluster`, or nullptr when it has none (absent or null).
const Json* clusterSection(const Json& document)
{
    const auto it = document.is_object() ? document.find("cluster") : document.end();
    return it != document.end() && !it->is_null() ? &*it : nullptr;
}

} // namespace

schema::ClusterSpec readableCluster(const Json& document)
{
    schema::Problems ignored;
    return schema::readCluster(clusterSection(document), "cluster", ignored);
}

ClusterEditing::ClusterEditing(ExperimentDocument& document) : m_document(document) {}

QList<ClusterNode> ClusterEditing::nodes() const
{
    QList<ClusterNode> out;
    const Json written = m_document.value("/cluster/nodes");
    for (const auto& n : readableCluster(m_document.json()).nodes) {
        ClusterNode node = toNode(n);
        node.sshPort = writtenInteger(written, out.size(), "ssh_port", node.sshPort);
        out.push_back(node);
    }
    return out;
}

QList<ClusterTaskAssignment> ClusterEditing::assignments() const
{
    QList<ClusterTaskAssignment> out;
    const Json written = m_document.value("/cluster/tasks");
    for (const auto& t : readableCluster(m_document.json()).tasks)
        out.push_back({q(t.type), q(t.node), writtenInteger(written, out.size(), "count", int(t.count)),
                       writtenInteger(written, out.size(), "port", int(t.port))});
    return out;
}

QString ClusterEditing::strategy() const { return strategyOf(m_document.json()); }

bool ClusterEditing::usesTasks() const { return isMultiProcess(strategy().toStdString()); }

QString ClusterEditing::singleProcessPlace() const
{
    const schema::ClusterSpec cluster = readableCluster(m_document.json());
    for (const schema::TaskAssignment& t : cluster.tasks) {
        if (t.type != "chief" && t.type != "worker")
            continue;
        for (const schema::NodeSpec& n : cluster.nodes)
            if (n.name == t.node && n.auth != "none")
                return tr("node %1 (%2)").arg(q(n.name), q(n.host));
        break;
    }
    return tr("this machine");
}

QStringList ClusterEditing::taskTypes()
{
    QStringList out;
    for (const auto& t : schema::taskTypes())
        out << q(t);
    return out;
}

QString ClusterEditing::neededTaskType() const
{
    const schema::ClusterSpec cluster = readableCluster(m_document.json());
    if (strategy() == QLatin1String("ParameterServer")) {
        if (schema::taskCount(cluster, "chief") == 0)
            return QStringLiteral("chief");
        if (schema::taskCount(cluster, "ps") == 0)
            return QStringLiteral("ps");
    }
    return QStringLiteral("worker");
}

QStringList ClusterEditing::tasks() const
{
    QStringList out;
    for (const auto& name : schema::taskNames(readableCluster(m_document.json())))
        out << q(name);
    return out;
}

Json ClusterEditing::editable() const
{
    const Json cluster = m_document.value("/cluster");
    if (cluster.is_object() && cluster.value("nodes", Json()).is_array() && cluster.value("tasks", Json()).is_array())
        return cluster;
    return schema::clusterToJson(readableCluster(m_document.json()));
}

Json ClusterEditing::withCluster(const Json& before, const Json& cluster)
{
    Json after = Json::object();
    // A new section goes after the strategy, where experimentToJson writes it.
    for (const auto& [key, value] : before.items()) {
        after[key] = key == "cluster" ? cluster : value;
        if (key == "strategy" && !before.contains("cluster"))
            after["cluster"] = cluster;
    }
    if (!after.contains("cluster"))
        after["cluster"] = cluster;
    return after;
}

void ClusterEditing::commit(const Json& cluster, const QString& label)
{
    const Json& before = m_document.json();
    if (before.contains("cluster") && before["cluster"] == cluster)
        return;
    m_document.replace(withCluster(before, cluster), label);
}

QList<ClusterTaskAssignment> ClusterEditing::localJob(const QString& strategy)
{
    if (strategy == QLatin1String("MultiWorkerMirrored"))
        return {{"worker", {}, 2, 0}};
    if (strategy == QLatin1String("ParameterServer"))
        return {{"chief", {}, 1, 0}, {"worker", {}, 2, 0}, {"ps", {}, 2, 0}};
    return {};
}

QString ClusterEditing::localJobText(const QString& strategy)
{
    if (strategy == QLatin1String("MultiWorkerMirrored"))
        return tr("2 workers");
    if (strategy == QLatin1String("ParameterServer"))
        return tr("a chief, 2 workers and 2 ps tasks");
    return {};
}

namespace {

// The cluster with `tasks` on its first node of this machine (one added when it has none).
Json localCluster(Json cluster, const QList<ClusterTaskAssignment>& tasks)
{
    std::string node;
    for (const Json& n : cluster["nodes"])
        if (node.empty() && n.is_object() && n.value("auth", std::string("none")) == "none")
            node = nameOf(n);
    if (node.empty()) {
        const schema::NodeSpec local = schema::ClusterSpec{}.nodes.front();
        cluster["nodes"].push_back(schema::nodeToJson(local));
        node = local.name;
    }
    cluster["tasks"] = Json::array();
    for (ClusterTaskAssignment t : tasks) {
        t.node = QString::fromStdString(node);
        cluster["tasks"].push_back(assignmentJson(t));
    }
    return cluster;
}

// Whether `cluster` gives the tasks `strategy` needs (as the engine checks them) and, for
// MultiWorkerMirrored, more than one training task.
bool suits(const schema::ClusterSpec& cluster, const QString& strategy)
{
    const int64_t chiefs = schema::taskCount(cluster, "chief"), workers = schema::taskCount(cluster, "worker"),
                  ps = schema::taskCount(cluster, "ps");
    if (strategy == QLatin1String("MultiWorkerMirrored"))
        return ps == 0 && chiefs + workers > 1;
    if (strategy == QLatin1String("ParameterServer"))
        return chiefs == 1 && workers >= 1 && ps >= 1;
    return ps == 0 && chiefs + workers <= 1;
}

bool onThisMachineOnly(const schema::ClusterSpec& cluster)
{
    for (const schema::TaskAssignment& t : cluster.tasks)
        for (const schema::NodeSpec& n : cluster.nodes)
            if (n.name == t.node && n.auth != "none")
                return false;
    return true;
}

} // namespace

void ClusterEditing::setUpLocalJob()
{
    const QString strategy = strategyOf(m_document.json());
    const QList<ClusterTaskAssignment> job = localJob(strategy);
    if (!job.isEmpty())
        commit(localCluster(editable(), job), tr("Set up %1 on this machine").arg(localJobText(strategy)));
}

void ClusterEditing::chooseStrategy(const QString& type, const QStringList& keep)
{
    const Json& before = m_document.json();
    if (strategyOf(before) == type)
        return;
    Json after = before;
    after["strategy"] = ExperimentDocument::ofType(m_document.value("/strategy"), type, keep);
    const QString label = tr("Change strategy to %1").arg(type);
    const schema::ClusterSpec cluster = readableCluster(before);
    if (suits(cluster, type) || !onThisMachineOnly(cluster)) {
        m_document.replace(after, label);
        return;
    }
    Json fitted = editable();
    if (const QList<ClusterTaskAssignment> job = localJob(type); !job.isEmpty()) {
        fitted = localCluster(fitted, job);
    } else {
        // One process: the first training task, alone, where it was.
        const Json tasks = fitted["tasks"];
        fitted = localCluster(fitted, {{"worker", {}, 1, 0}});
        for (const Json& task : tasks)
            if (task.is_object() && (task.value("type", Json()) == "chief" || task.value("type", Json()) == "worker")) {
                fitted["tasks"] = Json::array({task});
                fitted["tasks"][0]["count"] = 1;
                break;
            }
    }
    m_document.replace(withCluster(after, fitted), tr("%1 (and its tasks)").arg(label));
}

void ClusterEditing::addNode(const ClusterNode& node)
{
    Json cluster = editable();
    cluster["nodes"].push_back(nodeJson(node));
    commit(cluster, tr("Add node %1").arg(node.name));
}

void ClusterEditing::updateNode(int row, const ClusterNode& node)
{
    Json cluster = editable();
    Json& nodes = cluster["nodes"];
    if (!inRange(row, nodes))
        return;
    const std::string oldName = nameOf(nodes[row]);
    const std::string newName = node.name.toStdString();
    nodes[row] = nodeJson(node);
    if (oldName.empty() || oldName == newName) {
        commit(cluster, tr("Edit node %1").arg(node.name));
        return;
    }
    for (Json& task : cluster["tasks"])
        if (assignedTo(task, oldName))
            task["node"] = newName;
    commit(cluster, tr("Rename node %1 to %2").arg(q(oldName), node.name));
}

void ClusterEditing::removeNode(int row)
{
    Json cluster = editable();
    Json& nodes = cluster["nodes"];
    if (!inRange(row, nodes))
        return;
    const std::string name = nameOf(nodes[row]);
    nodes.erase(nodes.begin() + row);
    if (!name.empty()) {
        Json kept = Json::array();
        for (const Json& task : cluster["tasks"])
            if (!assignedTo(task, name))
                kept.push_back(task);
        cluster["tasks"] = kept;
    }
    commit(cluster, tr("Remove node %1").arg(q(name)));
}

void ClusterEditing::addAssignment(const ClusterTaskAssignment& assignment)
{
    Json cluster = editable();
    cluster["tasks"].push_back(assignmentJson(assignment));
    commit(cluster, tr("Add %1 tasks").arg(assignment.type));
}

void ClusterEditing::updateAssignment(int row, const ClusterTaskAssignment& assignment)
{
    Json cluster = editable();
    if (!inRange(row, cluster["tasks"]))
        return;
    cluster["tasks"][row] = assignmentJson(assignment);
    commit(cluster, tr("Edit %1 tasks").arg(assignment.type));
}

void ClusterEditing::removeAssignment(int row)
{
    Json cluster = editable();
    Json& tasks = cluster["tasks"];
    if (!inRange(row, tasks))
        return;
    tasks.erase(tasks.begin() + row);
    commit(cluster, tr("Remove tasks"));
}

qint64 ClusterEditing::stopUnattendedSeconds() const
{
    return readableCluster(m_document.json()).stopUnattendedSeconds;
}

void ClusterEditing::setStopUnattendedSeconds(qint64 seconds)
{
    Json cluster = editable();
    cluster["stop_unattended_seconds"] = seconds;
    commit(cluster, seconds == 0 ? tr("Never stop the job unattended")
                                 : tr("Stop the job after %1 s unattended").arg(seconds));
}

Json ClusterEditing::tfConfigOf(const QString& task, QString* error) const
{
    schema::Problems problems;
    const schema::ClusterSpec cluster = schema::readCluster(clusterSection(m_document.json()), "cluster", problems);
    if (!problems.empty()) {
        QStringList lines;
        for (const auto& p : problems.list())
            lines << q(p.str());
        fail(error, tr("The cluster has problems, so there is no TF_CONFIG yet:\n%1").arg(lines.join('\n')));
        return {};
    }
    for (const auto& a : schema::taskAddresses(cluster))
        if (q(a.name()) == task)
            return schema::tfConfig(cluster, a.type, a.index);
    fail(error, tr("The cluster has no task %1.").arg(task));
    return {};
}

QString ClusterEditing::tfConfigPreview(const QString& task, QString* error) const
{
    const Json config = tfConfigOf(task, error);
    return config.is_null() ? QString() : q(config.dump(2));
}

bool ClusterEditing::importTfConfigFile(const QString& path, QString* error)
{
    schema::ClusterSpec cluster;
    try {
        cluster = schema::clusterFromTfConfig(schema::readJsonFile(path.toStdString()));
    } catch (const ConfigError& e) {
        return fail(error, tr("%1 is not a usable TF_CONFIG: %2").arg(path, q(e.what())));
    } catch (const Error& e) {
        // Missing file or malformed JSON: the message names the file (and line and column).
        return fail(error, tr("Cannot import TF_CONFIG: %1").arg(q(e.what())));
    }
    commit(schema::clusterToJson(cluster), tr("Import TF_CONFIG"));
    return true;
}

bool ClusterEditing::exportTfConfig(const QString& path, const QString& task, QString* error) const
{
    const Json config = tfConfigOf(task, error);
    if (config.is_null())
        return false;
    QSaveFile file(path);
    const std::string text = config.dump(2) + "\n";
    // flush() before commit(): Qt 6.4's commit() ignores a failed flush (a full disk).
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), static_cast<qint64>(text.size())) < 0 ||
        !file.flush() || !file.commit())
        return fail(error, tr("Cannot write %1: %2").arg(path, file.errorString()));
    return true;
}

} // namespace strata::app
