// TensorFlow's SlurmClusterResolver, behaviour for behaviour, on an environment passed in.
// Where Strata differs (and why) is in docs/decisions.md, "Cluster resolvers"; each place is
// marked "Unlike TensorFlow" below.

#include "strata/schema/slurm_resolver.h"
#include "strata/schema/task_gpus.h"

#include "cluster_rules.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <set>

namespace strata::schema {

namespace {

const std::string kStartWithSrun = "is not set: not running inside a Slurm step? Start each task with srun inside an "
                                   "allocation (sbatch or salloc)";

const std::string& variable(const Environment& env, const std::string& name)
{
    const auto it = env.find(name);
    if (it == env.end())
        throw ConfigError(name, kStartWithSrun);
    return it->second;
}

// A variable holding a whole number >= 0.
int64_t countVariable(const Environment& env, const std::string& name)
{
    const std::string& text = variable(env, name);
    const bool digits = !text.empty() && text.size() <= 9 &&
                        std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
    if (!digits)
        throw ConfigError(name, quoted(text) + " is not a whole number");
    return std::stoll(text);
}

// The GPUs CUDA_VISIBLE_DEVICES lists; nothing when it is not set. Unlike TensorFlow, an empty
// value lists none (TensorFlow counts one: "".split(",") has one element).
std::optional<std::vector<std::string>> visibleDevices(const Environment& env)
{
    const auto it = env.find("CUDA_VISIBLE_DEVICES");
    if (it == env.end())
        return std::nullopt;
    return visibleDeviceList(it->second);
}

// The step's hosts and the tasks on each, in rank order.
std::vector<std::pair<std::string, int64_t>> placement(const Environment& env, const SlurmOptions& o)
{
    std::vector<std::pair<std::string, int64_t>> out;
    if (o.tasksPerHost) { // in host name order, as TensorFlow sorts its dictionary
        for (const auto& [host, tasks] : *o.tasksPerHost) {
            if (tasks < 0)
                throw ConfigError("tasks_per_node." + host, "must be at least 0, got " + std::to_string(tasks));
            out.emplace_back(host, tasks);
        }
        return out;
    }
    const std::vector<std::string> hosts = expandHostlist(variable(env, "SLURM_STEP_NODELIST"), "SLURM_STEP_NODELIST");
    if (hosts.empty())
        throw ConfigError("SLURM_STEP_NODELIST", "is empty: the step has no nodes");
    // Unlike TensorFlow, which keeps the last count of a host named twice, a hostlist naming a
    // host twice is refused: Slurm never writes one, and the ranks would not match the hosts.
    std::set<std::string> seen;
    for (const auto& h : hosts)
        if (!seen.insert(h).second)
            throw ConfigError("SLURM_STEP_NODELIST", "names the host " + quoted(h) + " twice");
    std::vector<int64_t> counts;
    std::string countsFrom = "tasks_per_node";
    if (o.tasksPerNode) {
        counts = *o.tasksPerNode;
        if (counts.size() == 1) // one count: the same on every node
            counts.assign(hosts.size(), counts.front());
        for (const int64_t c : counts)
            if (c < 0)
                throw ConfigError("tasks_per_node", "must be at least 0, got " + std::to_string(c));
    } else {
        countsFrom = "SLURM_STEP_TASKS_PER_NODE";
        counts = expandTasksPerNode(variable(env, countsFrom), countsFrom);
    }
    // Unlike TensorFlow, which pairs them up to the shorter list, lists of different lengths are
    // refused: a task would be missing or misplaced.
    if (counts.size() != hosts.size())
        throw ConfigError(countsFrom, "gives the tasks of " + plural(static_cast<int64_t>(counts.size()), "node") +
                                          ", SLURM_STEP_NODELIST names " +
                                          plural(static_cast<int64_t>(hosts.size()), "node"));
    // Unlike TensorFlow, which sorts the hosts by name, the step's order is kept: Slurm numbers
    // the ranks in it (n9 before n10), so sorting would give a rank another task's host.
    for (size_t i = 0; i < hosts.size(); ++i)
        out.emplace_back(hosts[i], counts[i]);
    return out;
}

std::string gpuSource(const SlurmOptions& o, const Environment& env)
{
    if (o.gpusPerNode)
        return "gpus_per_node";
    if (env.count("CUDA_VISIBLE_DEVICES"))
        return "CUDA_VISIBLE_DEVICES";
    return o.nodeGpus ? "the GPUs found on this node" : "no GPU found on this node";
}

} // namespace

const std::vector<std::string>& slurmStepVariables()
{
    static const std::vector<std::string> names = {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_STEP_NODELIST",
                                                   "SLURM_STEP_TASKS_PER_NODE"};
    return names;
}

bool inSlurmStep(const Environment& env)
{
    return std::all_of(slurmStepVariables().begin(), slurmStepVariables().end(),
                       [&](const std::string& name) { return env.count(name) > 0; });
}

std::string SlurmCluster::taskName() const { return taskType + ":" + std::to_string(taskIndex); }

Json SlurmCluster::clusterJson() const
{
    Json out = Json::object();
    for (const auto& [name, addresses] : jobs)
        out[name] = addresses;
    return out;
}

Json SlurmCluster::tfConfig() const
{
    return Json{{"cluster", clusterJson()}, {"task", {{"type", taskType}, {"index", taskIndex}}}};
}

SlurmCluster resolveSlurmCluster(const Environment& env, const SlurmOptions& o)
{
    // In TensorFlow's order, so that the first problem reported is the one it raises.
    SlurmCluster out;
    out.rank = countVariable(env, "SLURM_PROCID");
    const std::map<std::string, int64_t> jobs =
        o.jobs ? *o.jobs : std::map<std::string, int64_t>{{"worker", countVariable(env, "SLURM_STEP_NUM_TASKS")}};
    for (const auto& [name, count] : jobs)
        if (count < 0)
            throw ConfigError("jobs." + name, "must be at least 0, got " + std::to_string(count));
    const auto hosts = placement(env, o);
    int64_t mostOnANode = 0, tasks = 0;
    for (const auto& [host, n] : hosts) {
        mostOnANode = std::max(mostOnANode, n);
        tasks += n;
    }
    const auto visible = visibleDevices(env);
    out.gpusPerNode = o.gpusPerNode ? *o.gpusPerNode : visible ? static_cast<int64_t>(visible->size()) : o.nodeGpus.value_or(0);
    if (out.gpusPerNode < 0)
        throw ConfigError("gpus_per_node", "must be at least 0, got " + std::to_string(out.gpusPerNode));
    // TensorFlow's default; its range() would fail on the 0 this gives a node without GPUs.
    out.gpusPerTask = o.gpusPerTask ? *o.gpusPerTask : mostOnANode > 0 ? out.gpusPerNode / mostOnANode : 0;
    if (out.gpusPerTask < 0)
        throw ConfigError("gpus_per_task", "must be at least 0, got " + std::to_string(out.gpusPerTask));
    if (mostOnANode * out.gpusPerTask > out.gpusPerNode)
        throw ConfigError("gpus_per_task", "requested more GPUs per node than available: " +
                                               plural(mostOnANode, "task") + " on a node with " +
                                               plural(out.gpusPerTask, "GPU") + " each need " +
                                               std::to_string(mostOnANode * out.gpusPerTask) + ", the node has " +
                                               std::to_string(out.gpusPerNode) + " (" + gpuSource(o, env) + ")");
    const int64_t requested = std::accumulate(jobs.begin(), jobs.end(), int64_t{0},
                                              [](int64_t sum, const auto& job) { return sum + job.second; });
    if (requested != tasks)
        throw ConfigError("jobs", "requested " + plural(requested, "task") + " but the Slurm step has " +
                                      std::to_string(tasks) + " (SLURM_STEP_TASKS_PER_NODE, or tasks_per_node)");
    if (out.rank >= tasks)
        throw ConfigError("SLURM_PROCID", "is " + std::to_string(out.rank) + " but the step has only " +
                                              plural(tasks, "task") + " (ranks 0 to " + std::to_string(tasks - 1) + ")");
    if (o.portBase < 1 || o.portBase + std::max<int64_t>(mostOnANode, 1) - 1 > 65535)
        throw ConfigError("port_base", "ports " + std::to_string(o.portBase) + " to " +
                                           std::to_string(o.portBase + mostOnANode - 1) +
                                           " are not all between 1 and 65535");

    // Every task in rank order: the port and GPUs by its place on its host.
    std::vector<std::string> addresses;
    for (const auto& [host, n] : hosts)
        for (int64_t k = 0; k < n; ++k) {
            if (static_cast<int64_t>(addresses.size()) == out.rank) {
                out.host = host;
                out.port = o.portBase + k;
                std::string ids;
                // Unlike TensorFlow, a CUDA_VISIBLE_DEVICES the task already has (Slurm's
                // --gres) is kept as the node's list: the positions pick from it, since writing
                // positions over it could name GPUs the allocation does not hold.
                const bool pick = visible && static_cast<int64_t>(visible->size()) >= (k + 1) * out.gpusPerTask;
                for (int64_t g = k * out.gpusPerTask; g < (k + 1) * out.gpusPerTask; ++g)
                    ids += (ids.empty() ? "" : ",") + (pick ? (*visible)[g] : std::to_string(g));
                // A task without GPUs leaves CUDA_VISIBLE_DEVICES alone (TensorFlow cannot
                // express it: its range() step would be 0).
                if (o.autoSetGpu && out.gpusPerTask > 0)
                    out.cudaVisibleDevices = ids;
            }
            addresses.push_back(addressOf(host, o.portBase + k));
        }
    // Jobs in name order take consecutive ranks.
    int64_t first = 0;
    for (const auto& [name, count] : jobs) {
        out.jobs.emplace_back(name, std::vector<std::string>(addresses.begin() + first, addresses.begin() + first + count));
        if (out.rank >= first && out.rank < first + count) {
            out.taskType = name;
            out.taskIndex = out.rank - first;
        }
        first += count;
    }
    return out;
}

SlurmOptions slurmOptions(const SlurmSettings& s)
{
    SlurmOptions o;
    if (!s.jobs.empty())
        o.jobs = s.jobs;
    o.portBase = s.portBase;
    if (s.gpusPerTask > 0)
        o.gpusPerTask = s.gpusPerTask;
    return o;
}

ClusterSpec slurmClusterSpec(const SlurmCluster& cluster)
{
    Problems problems;
    for (const auto& [name, addresses] : cluster.jobs)
        if (std::find(taskTypes().begin(), taskTypes().end(), name) == taskTypes().end())
            problems.add("jobs." + name, quoted(name) + " is not a Strata task type (chief, worker, ps, evaluator): "
                                                        "TensorFlow's resolver accepts any job name, Strata trains "
                                                        "with these only");
    problems.throwIfAny();
    // A Slurm job's run directory is on the filesystem its nodes share.
    return clusterFromTfConfig(cluster.tfConfig(), true);
}

} // namespace strata::schema
