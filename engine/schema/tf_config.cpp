#include "cluster_rules.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

namespace strata::schema {

namespace {

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

// One address of a TF_CONFIG's cluster lists.
struct TfAddress {
    std::string type, path, host;
    int64_t port = 0;
};

// A task index as TensorFlow's int() reads a dictionary key or "task.index" written as a string:
// digits, with spaces around and a sign allowed ("1", " 2", "+3", "-1"); nothing otherwise.
std::optional<int64_t> indexFromText(const std::string& text)
{
    const size_t first = text.find_first_not_of(" \t\n"), last = text.find_last_not_of(" \t\n");
    if (first == std::string::npos)
        return std::nullopt;
    std::string digits = text.substr(first, last - first + 1);
    const bool negative = digits.starts_with('-');
    if (negative || digits.starts_with('+'))
        digits.erase(0, 1);
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
        return std::nullopt;
    return negative ? -std::stoll(digits) : std::stoll(digits);
}

// One job of TF_CONFIG's "cluster", in index order: a list of addresses, or (as TensorFlow's
// ClusterSpec also takes) a dictionary of task index -> address. TensorFlow allows a sparse
// dictionary (some indices only); Strata runs every task of a cluster, so the indices must
// be 0 to n-1.
std::optional<std::vector<const Json*>> jobAddresses(const Json& job, const std::string& path, Problems& problems)
{
    std::vector<const Json*> out;
    if (job.is_array()) {
        for (const Json& address : job)
            out.push_back(&address);
        return out;
    }
    if (!job.is_object()) {
        problems.add(path, "must be a list of \"host:port\" addresses (or an object of task index -> address), got " +
                               describe(job));
        return std::nullopt;
    }
    std::map<int64_t, const Json*> byIndex;
    bool ok = true;
    for (const auto& [key, address] : job.items()) {
        const std::optional<int64_t> index = indexFromText(key);
        if (!index || *index < 0) {
            problems.add(joinPath(path, key), quoted(key) + " is not a task index (a whole number from 0)");
            ok = false;
        } else if (!byIndex.emplace(*index, &address).second) {
            problems.add(joinPath(path, key), "task index " + std::to_string(*index) + " is given twice");
            ok = false;
        }
    }
    if (!ok)
        return std::nullopt;
    int64_t expected = 0;
    for (const auto& [index, address] : byIndex) {
        if (index != expected) {
            problems.add(path, "has no task " + std::to_string(expected) + " (its indices run to " +
                                   std::to_string(byIndex.rbegin()->first) +
                                   "): TensorFlow allows a sparse job, but Strata runs every task of the cluster, "
                                   "numbered 0 to n-1");
            return std::nullopt;
        }
        out.push_back(address);
        ++expected;
    }
    return out;
}

// The addresses of TF_CONFIG's "cluster", in TensorFlow's type order; unknown types and
// malformed addresses are problems.
std::vector<TfAddress> readTfAddresses(const Json& config, Problems& problems)
{
    std::vector<TfAddress> parsed;
    const auto cluster = config.find("cluster");
    if (cluster == config.end() || !cluster->is_object()) {
        problems.add("cluster", cluster == config.end()
                                    ? std::string("is required: {\"worker\": [\"host:port\", ...], ...}")
                                    : "must be an object of task lists, got " + describe(*cluster));
        return parsed;
    }
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
        const std::optional<std::vector<const Json*>> addresses = jobAddresses(*list, path, problems);
        for (size_t i = 0; addresses && i < addresses->size(); ++i) {
            // A dictionary's address is reported at its key ("cluster.worker.1").
            TfAddress p{type, list->is_array() ? indexPath(path, i) : joinPath(path, std::to_string(i)), {}, 0};
            const Json& address = *(*addresses)[i];
            const std::string why = address.is_string() ? splitAddress(address.get<std::string>(), p.host, p.port)
                                                        : "must be a \"host:port\" string, got " + describe(address);
            if (why.empty())
                parsed.push_back(std::move(p));
            else
                problems.add(p.path, why);
        }
    }
    return parsed;
}

// TF_CONFIG's "task" as TFConfigClusterResolver reads it: the type through str() (123 is
// "123"), the index through int() ("1" is 1). Either missing is a problem: TensorFlow's resolver
// then has no task, which its multi-worker strategies refuse ("you must also specify task_type
// and task_id").
std::optional<std::pair<std::string, int64_t>> readTfTask(const Json& task, Problems& problems)
{
    ObjectReader r(task, "task", problems);
    if (!r.valid())
        return std::nullopt;
    const Json* typeJson = r.child("type");
    const Json* indexJson = r.child("index");
    const std::string why = " (TensorFlow's strategies refuse a task without type and index)";
    std::optional<std::string> type;
    if (!typeJson)
        problems.add("task.type", "is required; one of: chief, worker, ps, evaluator" + why);
    else if (typeJson->is_number_integer() || typeJson->is_number_unsigned())
        type = typeJson->dump();
    else if (typeJson->is_string())
        type = typeJson->get<std::string>();
    else
        problems.add("task.type", "must be a task type (chief, worker, ps, evaluator), got " + describe(*typeJson));
    if (type && !readChoice(*type, "task.type", taskTypes(), problems).size())
        type.reset();
    std::optional<int64_t> index;
    if (!indexJson)
        problems.add("task.index", "is required" + why);
    else if (indexJson->is_string())
        index = indexFromText(indexJson->get<std::string>());
    else
        index = r.maybeInteger("index", true);
    if (indexJson && indexJson->is_string() && !index)
        problems.add("task.index", "must be an integer (or one written as a string, as TensorFlow's int() reads it), got " +
                                       describe(*indexJson));
    if (index && *index < 0) {
        problems.add("task.index", "must be at least 0, got " + std::to_string(*index));
        index.reset();
    }
    if (!type || !index)
        return std::nullopt;
    return std::make_pair(*type, *index);
}

// TF_CONFIG's "task": a type of the cluster and an index within its list (checked against the
// cluster only when `clusterRead`).
void checkTfTask(const Json& config, const std::vector<TfAddress>& parsed, bool clusterRead, Problems& problems)
{
    const auto task = config.find("task");
    if (task == config.end() || task->is_null())
        return;
    const auto named = readTfTask(*task, problems);
    if (!named)
        return;
    // Named, not bound: clang 14 (the fuzz build) does not let a lambda capture a binding.
    const std::string& type = named->first;
    const int64_t index = named->second;
    // Like TensorFlow, an evaluator need not be listed in the cluster.
    const int64_t count = std::count_if(parsed.begin(), parsed.end(), [&](const TfAddress& p) { return p.type == type; });
    if (clusterRead && type != "evaluator" && index >= count)
        problems.add(count == 0 ? "task.type" : "task.index",
                     count == 0 ? "the cluster has no " + type + " tasks"
                                : "the cluster has " + plural(count, type + " task") + ", so no index " +
                                      std::to_string(index));
}

// The cluster's rules as readCluster checks them, with TF_CONFIG's paths.
void checkTfCluster(const std::vector<TfAddress>& parsed, bool sharedRunDir, Problems& problems)
{
    std::vector<TaskGroup> groups;
    std::vector<AddressUse> uses;
    std::map<std::string, int64_t> indices;
    for (const auto& p : parsed) {
        groups.push_back({joinPath("cluster", p.type), p.type, 1});
        uses.push_back({p.path, p.type + ":" + std::to_string(indices[p.type]++), addressOf(p.host, p.port)});
    }
    checkTaskCounts(groups, "cluster", problems);
    checkAddressesUnique(uses, problems);
    if (sharedRunDir)
        return;
    // As readCluster checks it (checkEvaluatorPlacement).
    const auto chief = std::find_if(parsed.begin(), parsed.end(), [](const TfAddress& p) { return p.type == "chief"; });
    const auto first = chief != parsed.end() ? chief : std::find_if(parsed.begin(), parsed.end(), [](const TfAddress& p) {
        return p.type == "worker";
    });
    for (const TfAddress& p : parsed)
        if (p.type == "evaluator" && first != parsed.end() && !sameHost(p.host, first->host))
            problems.add(p.path, "the evaluator must run on the host of " + first->type + ":0 (" + first->host +
                                     "): it reads the chief's checkpoints from the run directory there");
}

// One node per distinct host; consecutive addresses of one type on one node with consecutive
// ports as one assignment.
ClusterSpec clusterOf(const std::vector<TfAddress>& parsed)
{
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
            out.nodes.push_back(NodeSpec{name, p.host, defaultInteger("cluster.nodes.ssh_port"), {}, defaultAuth(p.host)});
        }
        TaskAssignment* last = out.tasks.empty() ? nullptr : &out.tasks.back();
        if (last && last->type == p.type && last->node == it->second && last->port + last->count == p.port)
            ++last->count;
        else
            out.tasks.push_back({p.type, it->second, 1, p.port});
    }
    return out;
}

} // namespace

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

ClusterSpec clusterFromTfConfig(const Json& config, bool sharedRunDir)
{
    if (!config.is_object())
        throw ConfigError("", "a TF_CONFIG is a JSON object with \"cluster\" (and \"task\"), got " + describe(config));
    Problems problems;
    const std::vector<TfAddress> parsed = readTfAddresses(config, problems);
    const bool clusterRead = problems.empty();
    checkTfTask(config, parsed, clusterRead, problems);
    if (problems.empty())
        checkTfCluster(parsed, sharedRunDir, problems);
    problems.throwIfAny();
    ClusterSpec cluster = clusterOf(parsed);
    cluster.sharedRunDir = sharedRunDir;
    return cluster;
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
    const auto named = readTfTask(*task, problems);
    if (!named)
        return std::nullopt;
    return named->first + ":" + std::to_string(named->second);
}

bool tfConfigNamesCluster(const Json& config)
{
    const auto cluster = config.is_object() ? config.find("cluster") : config.end();
    return cluster != config.end() && !(cluster->is_object() && cluster->empty()) && !cluster->is_null();
}

} // namespace strata::schema
