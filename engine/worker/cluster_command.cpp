// `strata-engine cluster`: the cluster and task this process would run as, resolved as
// `train` resolves them (TF_CONFIG, the experiment's cluster.slurm in a Slurm step, the
// experiment), as one line of JSON: what a job script or the app's Slurm launcher checks.

#include "cli.h"
#include "tf_config.h"

#include "strata/core/error.h"

#include <cstdio>

namespace strata::cli {

namespace {

int64_t wholeNumber(const Args& args, const std::string& option, int64_t min, int64_t max)
{
    const std::string text = args.value(option);
    try {
        size_t used = 0;
        const long long n = std::stoll(text, &used);
        if (used == text.size() && n >= min && n <= max)
            return n;
    } catch (const std::exception&) {
    }
    throw UsageError(option + " needs a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                     ", got \"" + text + "\"");
}

// "--jobs ps:1,worker:4".
std::map<std::string, int64_t> jobsOption(const std::string& text)
{
    std::map<std::string, int64_t> jobs;
    size_t start = 0;
    for (size_t at = 0; at != std::string::npos; start = at + 1) {
        at = text.find(',', start);
        const std::string job = text.substr(start, at == std::string::npos ? std::string::npos : at - start);
        const size_t colon = job.find(':');
        const std::string count = colon == std::string::npos ? std::string() : job.substr(colon + 1);
        const bool ok = colon != std::string::npos && colon > 0 && !count.empty() && count.size() <= 6 &&
                        count.find_first_not_of("0123456789") == std::string::npos;
        if (!ok || !jobs.emplace(job.substr(0, colon), std::stoll(count)).second)
            throw UsageError("--jobs needs TYPE:N,TYPE:N (each type once, e.g. ps:1,worker:4), got \"" + text + "\"");
    }
    return jobs;
}

// The experiment's cluster.slurm (if any) with the command line's options over it.
schema::SlurmOptions commandLineSlurmOptions(const Args& args, const schema::Json* section)
{
    schema::SlurmOptions o;
    if (section) {
        schema::Problems ignored; // reported when the experiment is loaded
        if (const auto settings = schema::readCluster(section, "cluster", ignored).slurm)
            o = schema::slurmOptions(*settings);
    }
    if (args.has("--jobs"))
        o.jobs = jobsOption(args.value("--jobs"));
    if (args.has("--port-base"))
        o.portBase = wholeNumber(args, "--port-base", 1, 65535);
    if (args.has("--gpus-per-task")) { // 0: TensorFlow's default, as in cluster.slurm
        const int64_t n = wholeNumber(args, "--gpus-per-task", 0, 65535);
        o.gpusPerTask = n > 0 ? std::optional<int64_t>(n) : std::nullopt;
    }
    if (args.has("--gpus-per-node"))
        o.gpusPerNode = wholeNumber(args, "--gpus-per-node", 0, 65535);
    if (args.has("--tasks-per-node"))
        o.tasksPerNode = schema::expandTasksPerNode(args.value("--tasks-per-node"), "--tasks-per-node");
    return o;
}

// {"chief": [...], "worker": [...], ...}: TF_CONFIG's "cluster" of a cluster of the engine.
schema::Json lists(const schema::ClusterSpec& cluster)
{
    const auto addresses = schema::taskAddresses(cluster);
    if (addresses.empty())
        return schema::Json::object();
    return schema::tfConfig(cluster, addresses.front().type, addresses.front().index)["cluster"];
}

} // namespace

int clusterCommand(const Args& args)
{
    run::EventSink events("cluster", nullptr);
    return guarded(events, [&] {
        if (args.positional.size() > 1)
            throw UsageError("cluster takes at most one experiment file");
        std::optional<schema::Json> section;
        if (!args.positional.empty()) {
            const schema::Json document = schema::readJsonFile(args.positional[0]);
            section = document.is_object() && document.contains("cluster") ? document["cluster"] : schema::Json::object();
        }
        const schema::Json* sectionPtr = section ? &*section : nullptr;
        // Any Slurm option asks for the Slurm resolver, as --slurm does.
        bool slurm = args.has("--slurm");
        for (const char* option : {"--jobs", "--port-base", "--gpus-per-task", "--gpus-per-node", "--tasks-per-node"})
            slurm = slurm || args.has(option);
        std::optional<schema::SlurmOptions> forced;
        if (slurm)
            forced = commandLineSlurmOptions(args, sectionPtr);
        const ProcessCluster resolved = resolveProcessCluster(sectionPtr, forced);

        // The cluster as `train` would check it: the whole experiment, when there is one.
        schema::ClusterSpec cluster;
        if (!args.positional.empty()) {
            cluster = schema::loadExperiment(args.positional[0], resolved.cluster ? &*resolved.cluster : nullptr).cluster;
        } else if (resolved.cluster) {
            schema::Problems problems;
            cluster = schema::readCluster(&*resolved.cluster, "cluster", problems);
            problems.throwIfAny();
        }
        schema::Json out{{"source", resolved.source}};
        out["cluster"] = resolved.slurm ? resolved.slurm->clusterJson() : lists(cluster);
        out["task"] = nullptr;
        out["cuda_visible_devices"] = nullptr;
        out["node"] = nullptr;
        // --task names the task, as for train (the experiment's cluster names none).
        const std::optional<std::string> named = args.has("--task") ? std::optional<std::string>(args.value("--task"))
                                                                     : resolved.task;
        if (named) {
            const std::string& task = *named;
            const size_t colon = task.find(':');
            if (colon == std::string::npos || colon == 0 || colon + 1 == task.size() ||
                task.find_first_not_of("0123456789", colon + 1) != std::string::npos || task.size() - colon > 7)
                throw UsageError("--task needs TYPE:INDEX (worker:1), got \"" + task + "\"");
            out["task"] = {{"type", task.substr(0, colon)}, {"index", std::stoll(task.substr(colon + 1))}};
            for (const auto& a : schema::taskAddresses(cluster))
                if (a.name() == task)
                    out["node"] = a.host;
        }
        if (resolved.slurm) {
            out["node"] = resolved.slurm->host;
            if (resolved.slurm->cudaVisibleDevices)
                out["cuda_visible_devices"] = *resolved.slurm->cudaVisibleDevices;
        } else if (named && !args.positional.empty()) {
            // The task's share of its node's GPUs, as train sets it (schema/task_gpus.h).
            if (const auto gpus = taskGpus(args.positional[0], *named))
                out["cuda_visible_devices"] = *gpus;
        }
        std::printf("%s\n", out.dump().c_str());
        return static_cast<int>(kOk);
    });
}

} // namespace strata::cli
