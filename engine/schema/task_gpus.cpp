#include "strata/schema/task_gpus.h"

#include "cluster_rules.h"

#include <algorithm>

namespace strata::schema {

namespace {

std::string trim(const std::string& s)
{
    const size_t first = s.find_first_not_of(" \t");
    return first == std::string::npos ? std::string() : s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

} // namespace

bool usesNodeGpus(const std::string& type) { return type == "chief" || type == "worker"; }

std::vector<std::string> visibleDeviceList(const std::string& value)
{
    std::vector<std::string> ids;
    size_t start = 0;
    for (size_t at = 0; at != std::string::npos; start = at + 1) {
        at = value.find(',', start);
        const std::string id = trim(value.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (!id.empty())
            ids.push_back(id);
    }
    return ids;
}

GpuShare gpuShare(const ClusterSpec& cluster, const std::string& task)
{
    const std::vector<TaskAddress> tasks = taskAddresses(cluster);
    const auto self = std::find_if(tasks.begin(), tasks.end(), [&](const TaskAddress& a) { return a.name() == task; });
    GpuShare share;
    if (self == tasks.end() || !usesNodeGpus(self->type))
        return share;
    for (const TaskAddress& a : tasks) {
        if (!usesNodeGpus(a.type) || !sameHost(a.host, self->host))
            continue;
        if (a.name() == task)
            share.position = share.sharing;
        ++share.sharing;
    }
    return share;
}

std::optional<std::string> taskCudaVisibleDevices(const ClusterSpec& cluster, const std::string& task,
                                                  int64_t nodeGpus, const std::optional<std::string>& visibleDevices)
{
    const GpuShare share = gpuShare(cluster, task);
    // The node's GPUs: those CUDA_VISIBLE_DEVICES already lists (the task may use no others),
    // else all of them.
    std::vector<std::string> gpus;
    if (visibleDevices)
        gpus = visibleDeviceList(*visibleDevices);
    else
        for (int64_t g = 0; g < nodeGpus; ++g)
            gpus.push_back(std::to_string(g));
    const auto available = static_cast<int64_t>(gpus.size());
    const int64_t asked = cluster.gpusPerTask;
    if (share.sharing == 0 || available == 0 || (share.sharing == 1 && asked == 0))
        return std::nullopt;
    if (asked > 0 && share.sharing * asked > available)
        throw ConfigError("cluster.gpus_per_task",
                          "asks for more GPUs than the node has: " + plural(share.sharing, "task") +
                              " using GPUs on the host of " + task + " with " + plural(asked, "GPU") + " each need " +
                              std::to_string(share.sharing * asked) + ", the node has " + std::to_string(available) +
                              (visibleDevices ? " (CUDA_VISIBLE_DEVICES lists them)" : ""));
    // TensorFlow's even split (rounded down), at least one each: more tasks than GPUs take
    // them in turn.
    const int64_t each = asked > 0 ? asked : std::max<int64_t>(available / share.sharing, 1);
    std::string ids;
    for (int64_t g = share.position * each; g < (share.position + 1) * each; ++g)
        ids += (ids.empty() ? "" : ",") + gpus[static_cast<size_t>(g % available)];
    return ids;
}

bool runsAsTasks(const std::string& strategyType)
{
    return strategyType == "MultiWorkerMirrored" || strategyType == "ParameterServer";
}

std::optional<std::string> taskCudaVisibleDevices(const Experiment& experiment, const std::string& task,
                                                  int64_t nodeGpus, const std::optional<std::string>& visibleDevices)
{
    if (!runsAsTasks(experiment.strategy.effectiveType()))
        return std::nullopt;
    return taskCudaVisibleDevices(experiment.cluster, task, nodeGpus, visibleDevices);
}

} // namespace strata::schema
