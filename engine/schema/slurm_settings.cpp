// cluster.slurm of the experiment: read with every problem at its path, written back.

#include "cluster_rules.h"

#include <algorithm>
#include <cctype>

namespace strata::schema {

namespace {

bool digitsOnly(const std::string& s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// "a:b:c" with 1 to `most` fields, each digits.
bool colonFields(const std::string& s, size_t most)
{
    size_t fields = 0, start = 0;
    for (size_t at = 0; at != std::string::npos; start = at + 1, ++fields) {
        at = s.find(':', start);
        if (!digitsOnly(s.substr(start, at == std::string::npos ? std::string::npos : at - start)))
            return false;
    }
    return fields <= most;
}

// sbatch --time's formats: "minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours",
// "days-hours:minutes", "days-hours:minutes:seconds"; also "UNLIMITED" and "INFINITE".
bool isSlurmTime(const std::string& t)
{
    const std::string upper = [&] {
        std::string u = t;
        std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return std::toupper(c); });
        return u;
    }();
    if (upper == "UNLIMITED" || upper == "INFINITE")
        return true;
    const size_t dash = t.find('-');
    if (dash == std::string::npos)
        return colonFields(t, 3);
    return digitsOnly(t.substr(0, dash)) && colonFields(t.substr(dash + 1), 3);
}

std::map<std::string, int64_t> readJobs(ObjectReader& r, Problems& problems)
{
    std::map<std::string, int64_t> jobs;
    const Json* json = r.child("jobs");
    if (!json)
        return jobs;
    const std::string path = r.pathOf("jobs");
    if (!json->is_object()) {
        problems.add(path, "must be an object of task counts ({\"ps\": 1, \"worker\": 4}), got " + describe(*json));
        return jobs;
    }
    if (json->empty())
        problems.add(path, "must name at least one task type (leave it out: every task a worker)");
    ObjectReader counts(*json, path, problems);
    std::vector<TaskGroup> groups;
    for (const auto& [type, value] : json->items()) {
        if (std::find(taskTypes().begin(), taskTypes().end(), type) == taskTypes().end()) {
            std::string message = "unknown task type " + quoted(type);
            if (const std::string near = closestName(type, taskTypes()); !near.empty())
                message += " (did you mean " + quoted(near) + "?)";
            problems.add(joinPath(path, type), message + "; expected chief, worker, ps or evaluator");
            continue;
        }
        jobs[type] = counts.integer(type, 1, 1, 65535);
        groups.push_back({joinPath(path, type), type, jobs[type]});
    }
    if (!groups.empty())
        checkTaskCounts(groups, path, problems);
    return jobs;
}

} // namespace

std::optional<SlurmSettings> readSlurm(ObjectReader& cluster)
{
    const Json* json = cluster.child("slurm");
    if (!json)
        return std::nullopt;
    Problems& problems = cluster.problems();
    SlurmSettings s;
    ObjectReader r(*json, cluster.pathOf("slurm"), problems);
    if (!r.valid())
        return s;
    s.jobs = readJobs(r, problems);
    s.portBase = r.integer("port_base", s.portBase, 1, 65535);
    s.gpusPerTask = r.integer("gpus_per_task", s.gpusPerTask, 0, 65535);
    s.login = r.string("login", s.login);
    // Not looked up among the nodes: a TF_CONFIG or the Slurm step replaces them in the task.
    if (s.login.empty())
        problems.add(r.pathOf("login"), "must name the node that submits the job (\"local\": this machine)");
    s.partition = r.string("partition", s.partition);
    s.nodes = r.integer("nodes", s.nodes, 1, 65535);
    s.tasksPerNode = r.integer("tasks_per_node", s.tasksPerNode, 1, 65535);
    s.cpusPerTask = r.integer("cpus_per_task", s.cpusPerTask, 1, 65535);
    s.timeLimit = r.string("time_limit", s.timeLimit);
    if (!s.timeLimit.empty() && !isSlurmTime(s.timeLimit))
        problems.add(r.pathOf("time_limit"), schema::quoted(s.timeLimit) + " is not one of Slurm's time formats: "
                                                                   "\"minutes\", \"minutes:seconds\", "
                                                                   "\"hours:minutes:seconds\", \"days-hours\", "
                                                                   "\"days-hours:minutes\", \"days-hours:minutes:seconds\"");
    s.account = r.string("account", s.account);
    s.qos = r.string("qos", s.qos);
    if (const Json* extra = r.child("extra_sbatch")) {
        if (!extra->is_array())
            problems.add(r.pathOf("extra_sbatch"), "must be a list of sbatch options, got " + describe(*extra));
        for (size_t i = 0; extra->is_array() && i < extra->size(); ++i) {
            const Json& option = (*extra)[i];
            if (option.is_string() && option.get<std::string>().starts_with("-"))
                s.extraSbatch.push_back(option.get<std::string>());
            else
                problems.add(indexPath(r.pathOf("extra_sbatch"), i),
                             "must be an sbatch option (\"--mem=16G\"), got " + describe(option));
        }
    }
    s.requeue = r.boolean("requeue", s.requeue);
    s.signalSeconds = r.integer("signal_seconds", s.signalSeconds, 0, 65535);
    // The launcher starts nodes x tasks_per_node tasks (1 x 1 unless written): jobs must share
    // out exactly that many, or every task's resolver refuses the step.
    int64_t requested = 0;
    for (const auto& [type, count] : s.jobs)
        requested += count;
    if (!s.jobs.empty() && requested != s.nodes * s.tasksPerNode)
        problems.add(r.pathOf("jobs"), "asks for " + plural(requested, "task") + " but nodes x tasks_per_node is " +
                                           std::to_string(s.nodes) + " x " + std::to_string(s.tasksPerNode) + " = " +
                                           std::to_string(s.nodes * s.tasksPerNode));
    r.finish();
    return s;
}

Json slurmToJson(const SlurmSettings& s)
{
    Json jobs = Json::object();
    for (const auto& [type, count] : s.jobs)
        jobs[type] = count;
    Json out{{"port_base", s.portBase},   {"gpus_per_task", s.gpusPerTask},   {"login", s.login},
             {"partition", s.partition},  {"nodes", s.nodes},                 {"tasks_per_node", s.tasksPerNode},
             {"cpus_per_task", s.cpusPerTask}, {"time_limit", s.timeLimit},   {"account", s.account},
             {"qos", s.qos},              {"extra_sbatch", s.extraSbatch},    {"requeue", s.requeue},
             {"signal_seconds", s.signalSeconds}};
    // Absent jobs: every task a worker, whatever the step's size (an empty object is refused).
    if (!s.jobs.empty())
        out["jobs"] = jobs;
    return out;
}

} // namespace strata::schema
