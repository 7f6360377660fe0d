#include "strata/schema/cluster_spec.h"

#include "cluster_rules.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <set>

namespace strata::schema {

const std::vector<std::string>& taskTypes()
{
    static const std::vector<std::string> types = {"chief", "worker", "ps", "evaluator"};
    return types;
}

const std::vector<std::string>& authNames()
{
    static const std::vector<std::string> names = {"none", "agent", "key", "password"};
    return names;
}

namespace {

// A list of objects: absent gives `fallback`, anything but a list nothing; each element gives
// one entry (read as far as it can be) so that entries and elements keep their indices.
template<typename T, typename Read>
std::vector<T> readList(ObjectReader& r, const std::string& field, Read read, std::vector<T> fallback)
{
    const Json* list = r.child(field);
    if (!list)
        return fallback;
    if (!list->is_array()) {
        r.problems().add(r.pathOf(field), "must be a list, got " + describe(*list));
        return {};
    }
    std::vector<T> out;
    for (size_t i = 0; i < list->size(); ++i)
        out.push_back(read((*list)[i], indexPath(r.pathOf(field), i), r.problems()));
    return out;
}

// A string field kept as written, also when it is not one of `choices` (an editor shows it
// as written; the problem is reported).
std::string writtenChoice(ObjectReader& r, const std::string& field, const std::string& fallback,
                          const std::vector<std::string>& choices)
{
    const Json* v = r.child(field);
    if (!v)
        return fallback;
    readChoice(*v, r.pathOf(field), choices, r.problems());
    return v->is_string() ? v->get<std::string>() : fallback;
}

NodeSpec readNode(const Json& json, const std::string& path, Problems& problems)
{
    NodeSpec n;
    ObjectReader r(json, path, problems);
    if (!r.valid())
        return n;
    if (const auto name = r.maybeString("name", true)) {
        n.name = *name;
        if (name->empty())
            problems.add(r.pathOf("name"), "must not be empty");
    }
    if (const auto host = r.maybeString("host", true)) {
        n.host = *host;
        if (const std::string why = hostProblem(*host); !why.empty())
            problems.add(r.pathOf("host"), why);
    }
    n.sshPort = r.integer("ssh_port", n.sshPort, 1, 65535);
    n.user = r.string("user", "");
    n.auth = writtenChoice(r, "auth", defaultAuth(n.host), authNames());
    n.keyFile = r.string("key_file", "");
    if (n.auth == "key" && n.keyFile.empty())
        problems.add(r.pathOf("key_file"), "is required with auth \"key\": the private key file on this machine");
    n.engine = r.string("engine", "");
    n.workDir = r.string("work_dir", "");
    if (r.child("password"))
        problems.add(r.pathOf("password"), "secrets never go in the experiment file: with auth \"password\" the "
                                           "password is asked at launch");
    if (r.child("passphrase"))
        problems.add(r.pathOf("passphrase"), "secrets never go in the experiment file: the key's passphrase is "
                                             "asked at launch (or let the SSH agent hold the key: auth \"agent\")");
    r.finish();
    return n;
}

TaskAssignment readTask(const Json& json, const std::string& path, Problems& problems)
{
    TaskAssignment t;
    ObjectReader r(json, path, problems);
    if (!r.valid())
        return t;
    if (!r.has("type"))
        problems.add(r.pathOf("type"), "is required; one of: chief, worker, ps, evaluator");
    t.type = writtenChoice(r, "type", t.type, taskTypes());
    t.node = r.maybeString("node", true).value_or("");
    t.count = r.integer("count", t.count, 1, 65535);
    t.port = r.integer("port", t.port, 0, 65535);
    if (t.port > 0 && t.port + t.count - 1 > 65535)
        problems.add(r.pathOf("port"), plural(t.count, "task") + " from port " + std::to_string(t.port) +
                                           " go beyond port 65535");
    r.finish();
    return t;
}

std::vector<std::string> nodeNames(const ClusterSpec& cluster)
{
    std::vector<std::string> names;
    for (const auto& n : cluster.nodes)
        names.push_back(n.name);
    return names;
}

// The evaluator reads the checkpoints chief:0 (else worker:0) writes in its run directory,
// which is on that task's machine: a node of the same host (loopback names being one host).
void checkEvaluatorPlacement(const ClusterSpec& c, const std::string& tasksPath, Problems& problems)
{
    const auto first = [&](const std::string& type) {
        return std::find_if(c.tasks.begin(), c.tasks.end(), [&](const TaskAssignment& t) { return t.type == type; });
    };
    auto chief = first("chief");
    const std::string chiefName = chief != c.tasks.end() ? "chief:0" : "worker:0";
    if (chief == c.tasks.end())
        chief = first("worker");
    if (chief == c.tasks.end())
        return;
    const NodeSpec& chiefNode = *findNode(c, chief->node);
    for (size_t i = 0; i < c.tasks.size(); ++i) {
        const TaskAssignment& t = c.tasks[i];
        if (t.type != "evaluator" || t.node == chiefNode.name)
            continue;
        if (sameHost(findNode(c, t.node)->host, chiefNode.host))
            continue;
        problems.add(joinPath(indexPath(tasksPath, i), "node"),
                     "the evaluator must run on the node of " + chiefName + " (" + chiefNode.name +
                         "): it reads the chief's checkpoints from the run directory there");
    }
}

// Node names unique, task nodes existing, task counts as TensorFlow wants them and, when
// every task's node exists, no address used twice.
void checkCluster(const ClusterSpec& c, const std::string& path, Problems& problems)
{
    const std::string nodesPath = joinPath(path, "nodes"), tasksPath = joinPath(path, "tasks");
    if (c.nodes.empty())
        problems.add(nodesPath, "must list at least one node (this machine: {\"name\": \"local\", \"host\": "
                                "\"localhost\", \"auth\": \"none\"})");
    std::map<std::string, size_t> firstWithName;
    for (size_t i = 0; i < c.nodes.size(); ++i) {
        const std::string& name = c.nodes[i].name;
        if (name.empty())
            continue;
        const auto [it, inserted] = firstWithName.emplace(name, i);
        if (!inserted)
            problems.add(joinPath(indexPath(nodesPath, i), "name"),
                         quoted(name) + " names two nodes (also " + indexPath(nodesPath, it->second) + ")");
    }
    std::vector<TaskGroup> groups;
    bool nodesFound = true;
    for (size_t i = 0; i < c.tasks.size(); ++i) {
        const TaskAssignment& t = c.tasks[i];
        groups.push_back({indexPath(tasksPath, i), t.type, t.count});
        if (findNode(c, t.node))
            continue;
        nodesFound = false;
        if (t.node.empty())
            continue; // reported where it was read
        std::string message = "no node named " + quoted(t.node);
        if (const std::string near = closestName(t.node, nodeNames(c)); !near.empty())
            message += " (did you mean " + quoted(near) + "?)";
        problems.add(joinPath(indexPath(tasksPath, i), "node"), message);
    }
    checkTaskCounts(groups, tasksPath, problems);
    if (!nodesFound)
        return;
    if (!c.sharedRunDir)
        checkEvaluatorPlacement(c, tasksPath, problems);
    try {
        std::vector<AddressUse> uses;
        for (const TaskAddress& a : taskAddresses(c))
            uses.push_back({joinPath(indexPath(tasksPath, a.assignment), "port"), a.name(), a.address()});
        checkAddressesUnique(uses, problems);
    } catch (const ConfigError& e) {
        for (const auto& p : e.problems())
            problems.add(p.path, p.message);
    }
}

// Calls visit(type, index, assignment, offset) for every task, in TensorFlow's order.
template<typename Visit>
void forEachTask(const ClusterSpec& cluster, Visit visit)
{
    for (const std::string& type : taskTypes()) {
        int64_t index = 0;
        for (size_t a = 0; a < cluster.tasks.size(); ++a)
            if (cluster.tasks[a].type == type)
                for (int64_t k = 0; k < cluster.tasks[a].count; ++k)
                    visit(type, index++, a, k);
    }
}

} // namespace

std::string defaultAuth(const std::string& host) { return isLoopback(host) ? "none" : "agent"; }

std::string TaskAddress::name() const { return type + ":" + std::to_string(index); }

std::string TaskAddress::address() const { return addressOf(host, port); }

ClusterSpec readCluster(const Json* json, const std::string& path, Problems& problems)
{
    if (!json)
        return {};
    ClusterSpec c{{}, {}};
    ObjectReader r(*json, path, problems);
    if (!r.valid())
        return c;
    c.nodes = readList<NodeSpec>(r, "nodes", readNode, ClusterSpec{}.nodes);
    // Without tasks: one worker on the first node.
    const std::string first = c.nodes.empty() ? std::string() : c.nodes.front().name;
    c.tasks = readList<TaskAssignment>(r, "tasks", readTask, {TaskAssignment{"worker", first}});
    c.stopUnattendedSeconds = r.integer("stop_unattended_seconds", ClusterSpec{}.stopUnattendedSeconds, 0, std::numeric_limits<int64_t>::max());
    c.sharedRunDir = r.boolean("shared_run_dir", ClusterSpec{}.sharedRunDir);
    c.gpusPerTask = r.integer("gpus_per_task", ClusterSpec{}.gpusPerTask, 0, 65535);
    c.slurm = readSlurm(r);
    r.finish();
    checkCluster(c, path, problems);
    return c;
}

Json nodeToJson(const NodeSpec& n)
{
    return Json{{"name", n.name}, {"host", n.host}, {"ssh_port", n.sshPort}, {"user", n.user},
                {"auth", n.auth}, {"key_file", n.keyFile}, {"engine", n.engine}, {"work_dir", n.workDir}};
}

Json taskToJson(const TaskAssignment& t)
{
    return Json{{"type", t.type}, {"node", t.node}, {"count", t.count}, {"port", t.port}};
}

Json clusterToJson(const ClusterSpec& cluster)
{
    Json nodes = Json::array(), tasks = Json::array();
    for (const auto& n : cluster.nodes)
        nodes.push_back(nodeToJson(n));
    for (const auto& t : cluster.tasks)
        tasks.push_back(taskToJson(t));
    Json out{{"nodes", nodes}, {"tasks", tasks}, {"stop_unattended_seconds", cluster.stopUnattendedSeconds}};
    if (cluster.sharedRunDir) // written only when set: documents of before keep their form
        out["shared_run_dir"] = true;
    if (cluster.gpusPerTask > 0) // 0, the even share, is not written
        out["gpus_per_task"] = cluster.gpusPerTask;
    if (cluster.slurm)
        out["slurm"] = slurmToJson(*cluster.slurm);
    return out;
}

int64_t taskCount(const ClusterSpec& cluster, const std::string& type)
{
    int64_t n = 0;
    for (const auto& t : cluster.tasks)
        if (t.type == type)
            n += t.count;
    return n;
}

int64_t tasksOnHostOf(const ClusterSpec& cluster, const std::string& task, const std::vector<std::string>& types)
{
    const std::vector<TaskAddress> tasks = taskAddresses(cluster);
    const auto self = std::find_if(tasks.begin(), tasks.end(), [&](const TaskAddress& a) { return a.name() == task; });
    if (self == tasks.end())
        return 0;
    return std::count_if(tasks.begin(), tasks.end(), [&](const TaskAddress& a) {
        return std::find(types.begin(), types.end(), a.type) != types.end() && sameHost(a.host, self->host);
    });
}

std::vector<TaskAddress> taskAddresses(const ClusterSpec& cluster)
{
    std::map<std::string, std::set<int64_t>> taken; // explicit ports by lower-case host
    for (size_t a = 0; a < cluster.tasks.size(); ++a) {
        const TaskAssignment& t = cluster.tasks[a];
        const NodeSpec* node = findNode(cluster, t.node);
        if (!node)
            throw ConfigError(joinPath(indexPath("cluster.tasks", a), "node"), "no node named " + quoted(t.node));
        for (int64_t k = 0; t.port > 0 && k < t.count; ++k)
            taken[lower(node->host)].insert(t.port + k);
    }
    std::map<std::string, int64_t> next; // the next automatic port to try, by host
    std::vector<TaskAddress> out;
    forEachTask(cluster, [&](const std::string& type, int64_t index, size_t a, int64_t k) {
        const TaskAssignment& t = cluster.tasks[a];
        const NodeSpec& node = *findNode(cluster, t.node);
        int64_t port = t.port + k;
        if (t.port == 0) {
            const std::string host = lower(node.host);
            int64_t& candidate = next.try_emplace(host, kFirstAutomaticPort).first->second;
            while (taken[host].count(candidate))
                ++candidate;
            port = candidate++;
            if (port > 65535)
                throw ConfigError(joinPath(indexPath("cluster.tasks", a), "port"),
                                  "no automatic port left on " + node.host + " for " + type + ":" +
                                      std::to_string(index));
        }
        out.push_back({type, index, node.name, node.host, port, a});
    });
    return out;
}

std::vector<std::string> taskNames(const ClusterSpec& cluster)
{
    std::vector<std::string> names;
    forEachTask(cluster, [&](const std::string& type, int64_t index, size_t, int64_t) {
        names.push_back(type + ":" + std::to_string(index));
    });
    return names;
}

} // namespace strata::schema
