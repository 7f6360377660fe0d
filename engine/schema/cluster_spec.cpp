#include "strata/schema/cluster_spec.h"

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

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

bool isLoopback(const std::string& host)
{
    const std::string h = lower(host);
    return h == "localhost" || h == "127.0.0.1" || h == "::1";
}

// Why `host` cannot be a node's host, or empty.
std::string hostProblem(const std::string& host)
{
    if (host.empty())
        return "must not be empty: it is the name or address the other tasks reach the node at";
    if (std::any_of(host.begin(), host.end(), [](unsigned char c) {
            return std::isspace(c) || c == '/' || c == '@' || c == '[' || c == ']';
        }))
        return quoted(host) + " is not a host name or address";
    // One colon is "name:port"; IPv6 addresses have several.
    if (std::count(host.begin(), host.end(), ':') == 1)
        return quoted(host) + " includes a port: write the host alone (each task has its own port)";
    return {};
}

std::string plural(int64_t n, const std::string& what)
{
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// One entry for TensorFlow's rules on task counts: a group of `count` tasks of `type`,
// reported at `path` (an assignment of the document, or a type's list in a TF_CONFIG).
struct TaskGroup {
    std::string path;
    std::string type;
    int64_t count;
};

// At most one chief and one evaluator (TensorFlow's multi_worker_util refuses more), and at
// least one chief or worker: the processes that train.
void checkTaskCounts(const std::vector<TaskGroup>& groups, const std::string& path, Problems& problems)
{
    std::map<std::string, int64_t> totals;
    for (const auto& g : groups)
        totals[g.type] += g.count;
    std::map<std::string, int64_t> running;
    for (const auto& g : groups) {
        const int64_t before = running[g.type];
        running[g.type] += g.count;
        if ((g.type == "chief" || g.type == "evaluator") && before <= 1 && running[g.type] > 1)
            problems.add(g.path, "there can be at most one " + g.type + " (as in TensorFlow), the cluster has " +
                                     std::to_string(totals[g.type]));
    }
    if (totals["chief"] + totals["worker"] == 0)
        problems.add(path, "needs at least one chief or worker task: they are the processes that train");
}

// One task's address, for the check that no two tasks share one.
struct AddressUse {
    std::string path;
    std::string task;    // "worker:1"
    std::string address; // "host:port"
};

void checkAddressesUnique(const std::vector<AddressUse>& uses, Problems& problems)
{
    std::map<std::string, const AddressUse*> seen; // by lower-case address: host names ignore case
    for (const auto& use : uses) {
        const auto [it, inserted] = seen.emplace(lower(use.address), &use);
        if (!inserted)
            problems.add(use.path, it->second->task + " and " + use.task + " both use " + use.address);
    }
}

std::string addressOf(const std::string& host, int64_t port)
{
    const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return h + ":" + std::to_string(port);
}

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

const NodeSpec* findNode(const ClusterSpec& cluster, const std::string& name)
{
    const auto it = std::find_if(cluster.nodes.begin(), cluster.nodes.end(),
                                 [&](const NodeSpec& n) { return n.name == name; });
    return it == cluster.nodes.end() ? nullptr : &*it;
}

std::vector<std::string> nodeNames(const ClusterSpec& cluster)
{
    std::vector<std::string> names;
    for (const auto& n : cluster.nodes)
        names.push_back(n.name);
    return names;
}

// Two names of one machine: equal ignoring case, or both loopback names.
bool sameHost(const std::string& a, const std::string& b)
{
    const std::string x = lower(a), y = lower(b);
    return x == y || (isLoopback(x) && isLoopback(y));
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

// "host:port" ("[::1]:port"): host and port, or why not.
std::string splitAddress(const std::string& address, std::string& host, int64_t& port)
{
    // An IPv6 host is bracketed: its colons are not the port's.
    const size_t hostEnd = address.starts_with('[') ? address.find(']') + 1 : 0;
    const size_t colon = address.rfind(':');
    if (colon == std::string::npos || colon < hostEnd)
        return quoted(address) + " has no port (expected \"host:port\")";
    host = hostEnd > 0 ? address.substr(1, colon - 2) : address.substr(0, colon);
    if (const std::string why = hostProblem(host); !why.empty())
        return "address " + quoted(address) + ": host " + why;
    const std::string digits = address.substr(colon + 1);
    const bool numeric = !digits.empty() && digits.size() <= 5 &&
                         std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); });
    port = numeric ? std::stoll(digits) : 0;
    if (port < 1 || port > 65535)
        return "address " + quoted(address) + ": the port must be a number between 1 and 65535";
    return {};
}

// The node name a TF_CONFIG host gets: "local" for loopback, the address itself for an IP
// address, otherwise the first label ("gpu1" for gpu1.example.com).
std::string nodeNameFor(const std::string& host)
{
    if (isLoopback(host))
        return "local";
    const bool ipAddress = host.find(':') != std::string::npos ||
                           std::all_of(host.begin(), host.end(), [](unsigned char c) { return std::isdigit(c) || c == '.'; });
    // A name starting with a dot has no first label: the node is named after all of it.
    const std::string label = host.substr(0, host.find('.'));
    return ipAddress || label.empty() ? host : label;
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
    c.stopUnattendedSeconds = r.integer("stop_unattended_seconds", 0, 0, std::numeric_limits<int64_t>::max());
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
    return Json{{"nodes", nodes}, {"tasks", tasks}, {"stop_unattended_seconds", cluster.stopUnattendedSeconds}};
}

int64_t taskCount(const ClusterSpec& cluster, const std::string& type)
{
    int64_t n = 0;
    for (const auto& t : cluster.tasks)
        if (t.type == type)
            n += t.count;
    return n;
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

Json tfConfig(const ClusterSpec& cluster, const std::string& type, int64_t index)
{
    const std::vector<TaskAddress> addresses = taskAddresses(cluster);
    Json jobs = Json::object();
    for (const std::string& t : taskTypes()) {
        Json list = Json::array();
        for (const auto& a : addresses)
            if (a.type == t)
                list.push_back(a.address());
        if (!list.empty())
            jobs[t] = list;
    }
    const bool exists = std::any_of(addresses.begin(), addresses.end(),
                                    [&](const TaskAddress& a) { return a.type == type && a.index == index; });
    if (!exists) {
        std::string names;
        for (const auto& a : addresses)
            names += (names.empty() ? "" : ", ") + a.name();
        throw ConfigError("task", "the cluster has no task " + type + ":" + std::to_string(index) + " (its tasks: " +
                                      names + ")");
    }
    return Json{{"cluster", jobs}, {"task", {{"type", type}, {"index", index}}}};
}

ClusterSpec clusterFromTfConfig(const Json& config)
{
    if (!config.is_object())
        throw ConfigError("", "a TF_CONFIG is a JSON object with \"cluster\" (and \"task\"), got " + describe(config));
    Problems problems;
    struct Parsed {
        std::string type, path, host;
        int64_t port = 0;
    };
    std::vector<Parsed> parsed; // in TensorFlow's type order
    const auto cluster = config.find("cluster");
    if (cluster == config.end() || !cluster->is_object()) {
        problems.add("cluster", cluster == config.end()
                                    ? std::string("is required: {\"worker\": [\"host:port\", ...], ...}")
                                    : "must be an object of task lists, got " + describe(*cluster));
    } else {
        for (const auto& [type, list] : cluster->items()) {
            if (std::find(taskTypes().begin(), taskTypes().end(), type) != taskTypes().end())
                continue;
            std::string message = "unknown task type " + quoted(type);
            if (type == "master")
                message += " (TensorFlow 1's name for \"chief\")";
            else if (const std::string near = closestName(type, taskTypes()); !near.empty())
                message += " (did you mean " + quoted(near) + "?)";
            problems.add(joinPath("cluster", type), message + "; expected chief, worker, ps or evaluator");
        }
        for (const std::string& type : taskTypes()) {
            const auto list = cluster->find(type);
            if (list == cluster->end())
                continue;
            const std::string path = joinPath("cluster", type);
            if (!list->is_array()) {
                problems.add(path, "must be a list of \"host:port\" addresses, got " + describe(*list));
                continue;
            }
            for (size_t i = 0; i < list->size(); ++i) {
                Parsed p{type, indexPath(path, i), {}, 0};
                const Json& address = (*list)[i];
                const std::string why = address.is_string() ? splitAddress(address.get<std::string>(), p.host, p.port)
                                                            : "must be a \"host:port\" string, got " + describe(address);
                if (why.empty())
                    parsed.push_back(std::move(p));
                else
                    problems.add(p.path, why);
            }
        }
    }
    const bool clusterRead = problems.empty();
    if (const auto task = config.find("task"); task != config.end() && !task->is_null()) {
        ObjectReader r(*task, "task", problems);
        const Json* typeJson = r.child("type");
        if (r.valid() && !typeJson)
            problems.add("task.type", "is required; one of: chief, worker, ps, evaluator");
        const std::string type = typeJson ? readChoice(*typeJson, "task.type", taskTypes(), problems) : std::string();
        const auto index = r.maybeInteger("index", true, 0);
        // Like TensorFlow, an evaluator need not be listed in the cluster.
        const int64_t count = std::count_if(parsed.begin(), parsed.end(), [&](const Parsed& p) { return p.type == type; });
        if (clusterRead && !type.empty() && index && type != "evaluator" && *index >= count)
            problems.add(count == 0 ? "task.type" : "task.index",
                         count == 0 ? "the cluster has no " + type + " tasks"
                                    : "the cluster has " + plural(count, type + " task") + ", so no index " +
                                          std::to_string(*index));
    }
    std::vector<TaskGroup> groups;
    std::vector<AddressUse> uses;
    std::map<std::string, int64_t> indices;
    for (const auto& p : parsed) {
        groups.push_back({joinPath("cluster", p.type), p.type, 1});
        uses.push_back({p.path, p.type + ":" + std::to_string(indices[p.type]++), addressOf(p.host, p.port)});
    }
    if (problems.empty()) {
        checkTaskCounts(groups, "cluster", problems);
        checkAddressesUnique(uses, problems);
        // As readCluster checks it (checkEvaluatorPlacement), with TF_CONFIG's paths.
        const auto chief = std::find_if(parsed.begin(), parsed.end(), [](const Parsed& p) { return p.type == "chief"; });
        const auto first = chief != parsed.end() ? chief : std::find_if(parsed.begin(), parsed.end(), [](const Parsed& p) {
            return p.type == "worker";
        });
        for (const Parsed& p : parsed)
            if (p.type == "evaluator" && first != parsed.end() && !sameHost(p.host, first->host))
                problems.add(p.path, "the evaluator must run on the host of " + first->type + ":0 (" + first->host +
                                         "): it reads the chief's checkpoints from the run directory there");
    }
    problems.throwIfAny();

    ClusterSpec out{{}, {}};
    std::map<std::string, std::string> nodeOfHost; // lower-case host -> node name
    for (const auto& p : parsed) {
        auto [it, isNew] = nodeOfHost.emplace(lower(p.host), std::string());
        if (isNew) {
            const std::string base = nodeNameFor(p.host);
            std::string name = base;
            for (int n = 2; findNode(out, name); ++n)
                name = base + "-" + std::to_string(n);
            it->second = name;
            out.nodes.push_back(NodeSpec{name, p.host, 22, {}, defaultAuth(p.host)});
        }
        TaskAssignment* last = out.tasks.empty() ? nullptr : &out.tasks.back();
        if (last && last->type == p.type && last->node == it->second && last->port + last->count == p.port)
            ++last->count;
        else
            out.tasks.push_back({p.type, it->second, 1, p.port});
    }
    return out;
}

Json parseTfConfig(const std::string& text)
{
    try {
        return Json::parse(text);
    } catch (const Json::exception& e) { // parse_error, or out_of_range for a number beyond a double
        throw ConfigError("TF_CONFIG", std::string("is not JSON: ") + e.what());
    }
}

std::optional<std::string> tfConfigTask(const Json& config)
{
    const auto task = config.is_object() ? config.find("task") : config.end();
    if (task == config.end() || !task->is_object())
        return std::nullopt;
    // By clusterFromTfConfig's rules, whose problems name what is wrong.
    Problems problems;
    ObjectReader r(*task, "task", problems);
    const std::string type = r.string("type", "worker");
    const int64_t index = r.integer("index", 0, 0);
    if (!problems.empty())
        return std::nullopt;
    return type + ":" + std::to_string(index);
}

} // namespace strata::schema
