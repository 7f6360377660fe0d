#include "experiment_sections.h"

#include <algorithm>

namespace strata::schema {

namespace {

// A list of device names: each parsed, none twice, all CPUs or all GPUs, CPUs within the
// declared logical devices.
void checkDevices(const std::vector<std::string>& devices, const std::string& path, int64_t logicalCpus,
                  Problems& problems, bool list = true)
{
    std::vector<Device> seen;
    for (size_t i = 0; i < devices.size(); ++i) {
        const std::string p = list ? indexPath(path, i) : path;
        try {
            const Device d = Device::parse(devices[i]);
            if (std::find(seen.begin(), seen.end(), d) != seen.end())
                problems.add(p, d.str() + " is listed twice");
            else if (!seen.empty() && seen.front().kind != d.kind)
                problems.add(p, "replicas must be all CPUs or all GPUs; " + d.str() + " does not match " +
                                    seen.front().str());
            else if (d.isCpu() && logicalCpus > 0 && d.index >= logicalCpus)
                problems.add(p, d.str() + " does not exist: logical_cpu_devices is " + std::to_string(logicalCpus));
            seen.push_back(d);
        } catch (const ConfigError& e) {
            problems.add(p, e.problems().front().message);
        }
    }
}

std::vector<std::string> readDeviceList(ObjectReader& r, const std::string& field)
{
    std::vector<std::string> out;
    const Json* v = r.child(field);
    if (!v)
        return out;
    if (!v->is_array() || v->empty()) {
        r.problems().add(r.pathOf(field), "must be a non-empty list of devices, e.g. [\"cpu:0\", \"cpu:1\"]");
        return out;
    }
    for (size_t i = 0; i < v->size(); ++i) {
        if (!(*v)[i].is_string())
            r.problems().add(indexPath(r.pathOf(field), i), "must be a device name, got " + describe((*v)[i]));
        else
            out.push_back((*v)[i].get<std::string>());
    }
    return out;
}

// Whether the strategy trains in one process (one chief or worker task, no parameter servers).
bool singleProcess(const std::string& type)
{
    return type != "MultiWorkerMirrored" && type != "ParameterServer";
}

const std::vector<std::string>& partitionerNames()
{
    static const std::vector<std::string> names = {"FixedShards", "MinSize", "MaxSize"};
    return names;
}

PartitionerSpec readPartitioner(const Json* json, const std::string& path, Problems& problems)
{
    PartitionerSpec p;
    if (!json)
        return p;
    ObjectReader r(*json, path, problems);
    if (!r.valid())
        return p;
    p.type = r.choice("type", "", partitionerNames());
    if (p.type.empty() && !r.has("type"))
        problems.add(r.pathOf("type"), "is required; one of: FixedShards, MinSize, MaxSize");
    if (p.type == "FixedShards") {
        p.numShards = r.integer("num_shards", 0, 1, 1 << 20);
        if (!r.has("num_shards"))
            problems.add(r.pathOf("num_shards"), "is required for FixedShards (the number of shards)");
    } else if (p.type == "MinSize") {
        p.minShardBytes = r.integer("min_shard_bytes", p.minShardBytes, 1, int64_t{1} << 40);
        p.maxShards = r.integer("max_shards", defaultWhen<int64_t>("strategy.partitioner.max_shards", p.type), 1, 1 << 20);
    } else if (p.type == "MaxSize") {
        p.maxShardBytes = r.integer("max_shard_bytes", 0, 1, int64_t{1} << 40);
        if (!r.has("max_shard_bytes"))
            problems.add(r.pathOf("max_shard_bytes"), "is required for MaxSize (the largest shard, in bytes)");
        p.maxShards = r.integer("max_shards", defaultWhen<int64_t>("strategy.partitioner.max_shards", p.type), 1, 1 << 20);
    }
    r.finish();
    return p;
}

// The tasks a Slurm job runs, by type (every task a worker when no jobs are named).
ClusterSpec slurmTasks(const SlurmSettings& slurm)
{
    ClusterSpec tasks{{NodeSpec{"slurm", "slurm"}}, {}};
    if (slurm.jobs.empty())
        tasks.tasks.push_back({"worker", "slurm", slurm.nodes * slurm.tasksPerNode, 0});
    for (const auto& [type, count] : slurm.jobs)
        tasks.tasks.push_back({type, "slurm", count, 0});
    return tasks;
}

} // namespace

void checkClusterForStrategy(const StrategySpec& s, const ClusterSpec& c, Problems& problems,
                             std::vector<ConfigProblem>& notes)
{
    // A Slurm job's tasks are its jobs', whatever the nodes and tasks beside them say.
    const ClusterSpec t = c.slurm ? slurmTasks(*c.slurm) : c;
    const std::string tasksPath = c.slurm ? "cluster.slurm.jobs" : "cluster.tasks";
    if (s.type == "MultiWorkerMirrored") {
        if (const int64_t ps = taskCount(t, "ps"); ps > 0)
            problems.add(tasksPath, "MultiWorkerMirrored trains on its chief and workers; the cluster's " +
                                              std::to_string(ps) + " ps task" + (ps == 1 ? "" : "s") +
                                              " would never be used (parameter servers belong to ParameterServer "
                                              "training)");
        return;
    }
    if (s.type == "ParameterServer") {
        // TensorFlow's ParameterServerStrategy: a coordinator (the chief), workers and ps tasks.
        const int64_t chiefs = taskCount(t, "chief");
        if (chiefs != 1)
            problems.add(tasksPath, "ParameterServer needs exactly one chief task (the coordinator: it "
                                          "schedules the steps and writes checkpoints); the cluster has " +
                                              std::to_string(chiefs));
        if (taskCount(t, "worker") < 1)
            problems.add(tasksPath, "ParameterServer needs at least one worker task: the workers compute "
                                          "the gradients");
        if (taskCount(t, "ps") < 1)
            problems.add(tasksPath, "ParameterServer needs at least one ps task: the parameter servers "
                                          "hold the variables");
        return;
    }
    if (!singleProcess(s.type))
        return;
    if (taskCount(t, "evaluator") > 0)
        notes.push_back({tasksPath, "the evaluator task is not started: under " + s.type +
                                              " the training task evaluates (data.validation, and the test "
                                              "split at the end)"});
    const int64_t trainers = taskCount(t, "chief") + taskCount(t, "worker");
    if (trainers > 1)
        problems.add(tasksPath, s.type + " trains in one process, but the cluster has " +
                                          std::to_string(trainers) +
                                          " chief and worker tasks: choose MultiWorkerMirrored to train across "
                                          "several workers, or keep one task");
    if (const int64_t ps = taskCount(t, "ps"); ps > 0)
        problems.add(tasksPath, s.type + " uses no parameter servers, but the cluster has " +
                                          std::to_string(ps) + " ps task" + (ps == 1 ? "" : "s") +
                                          " (parameter servers belong to ParameterServer training)");
}

StrategySpec readStrategy(const Json* json, const std::string& path, Problems& problems,
                          std::vector<ConfigProblem>& notes)
{
    StrategySpec s;
    if (!json)
        return s;
    const Json obj = json->is_string() ? Json{{"type", *json}} : *json;
    if (json->is_string()) {
        if (readChoice(*json, path, strategyNames(), problems).empty())
            return s;
    }
    ObjectReader r(obj, path, problems);
    if (!r.valid())
        return s;
    s.type = r.choice("type", s.type, strategyNames());
    const std::string typePath = r.pathOf("type");
    s.logicalCpuDevices = r.integer("logical_cpu_devices", s.logicalCpuDevices, 1, 4096);
    s.logicalGpuDevices = r.integer("logical_gpu_devices", s.logicalGpuDevices, 1, 64);
    if (s.type == "OneDevice") {
        s.device = r.string("device", s.device);
        checkDevices({s.device}, r.pathOf("device"), s.logicalCpuDevices, problems, false);
    } else if (s.type == "Mirrored" || s.type == "TPU") {
        s.devices = readDeviceList(r, "devices");
        checkDevices(s.devices, r.pathOf("devices"), s.logicalCpuDevices, problems);
        s.crossDeviceOps = r.choice("cross_device_ops", s.crossDeviceOps, {"all_reduce", "reduce_to_one_device"});
        if (s.type == "TPU") {
            s.fallback = r.choice("fallback", s.fallback, {"Mirrored"});
            if (s.fallback.empty())
                problems.add(typePath, "there is no TPU on this machine and Strata has no TPU runtime; add "
                                       "\"fallback\": \"Mirrored\" to train under MirroredStrategy instead");
            else
                notes.push_back({typePath, "there is no TPU on this machine: training under the declared fallback, "
                                           "MirroredStrategy"});
        }
    } else if (s.type == "MultiWorkerMirrored") {
        s.devices = readDeviceList(r, "devices");
        checkDevices(s.devices, r.pathOf("devices"), s.logicalCpuDevices, problems);
        // A size in bytes, or "auto": tuned in the first steps (distribute/reduction_tuner.h).
        if (r.has("bucket_bytes") && obj["bucket_bytes"].is_string())
            s.bucketBytesAuto = r.choice("bucket_bytes", "", {"auto"}) == "auto";
        else
            s.bucketBytes = r.integer("bucket_bytes", s.bucketBytes, 1024, int64_t{1} << 32);
        s.timeoutSeconds = r.number("timeout_seconds", defaultWhen<double>("strategy.timeout_seconds", s.type), 0.1, 86400);
        s.startupTimeoutSeconds = r.number("startup_timeout_seconds", s.startupTimeoutSeconds, 0.1, 86400);
    } else if (s.type == "CentralStorage") {
        s.computeDevices = readDeviceList(r, "compute_devices");
        checkDevices(s.computeDevices, r.pathOf("compute_devices"), s.logicalCpuDevices, problems);
        s.parameterDevice = r.string("parameter_device", s.parameterDevice);
        checkDevices({s.parameterDevice}, r.pathOf("parameter_device"), s.logicalCpuDevices, problems, false);
        if (s.computeDevices.size() == 1)
            notes.push_back({r.pathOf("compute_devices"),
                             "CentralStorage with one compute device degenerates to OneDevice (one replica, "
                             "variables on " + s.parameterDevice + ")"});
    } else if (s.type == "ParameterServer") {
        s.partitioner = readPartitioner(r.child("partitioner"), r.pathOf("partitioner"), problems);
        s.maxStaleness = r.integer("max_staleness", s.maxStaleness, -1, 1 << 30);
        s.timeoutSeconds = r.number("timeout_seconds", defaultWhen<double>("strategy.timeout_seconds", s.type), 0.1, 86400);
        s.startupTimeoutSeconds = r.number("startup_timeout_seconds", s.startupTimeoutSeconds, 0.1, 86400);
    }
    r.finish();
    return s;
}

} // namespace strata::schema
