#include "strata/training/strategy_factory.h"

#include "distribute/central_storage_strategy.h"
#include "distribute/mirrored_strategy.h"
#include "distribute/multi_worker_mirrored_strategy.h"
#include "distribute/single_device_strategy.h"
#include "cuda/ops.h"
#include "distribute/nccl_communicator.h"
#include "ps/parameter_server_strategy.h"
#include "strata/distribute/in_process_communicator.h"
#include "strata/schema/cluster_spec.h"
#include "strata/schema/task_gpus.h"
#include "strata/tensor/gpu.h"

#include <algorithm>
#include <cctype>

namespace strata::run {

using namespace distribute;

namespace {

// "localhost" is this machine's IPv4 loopback, resolved here rather than by the system: a
// root without /etc/hosts cannot resolve it, and elsewhere it may resolve to ::1 for one
// task and 127.0.0.1 for another.
std::string reachableHost(const std::string& host)
{
    std::string lower = host;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    return lower == "localhost" ? "127.0.0.1" : host;
}

// This task's place in the experiment's synchronous job: the chief and the workers in
// TensorFlow's order, rank 0 hosting the rendezvous at its cluster address.
ProcessGroupOptions jobOf(const schema::Experiment& e, const TaskContext& task)
{
    ProcessGroupOptions o;
    bool found = false;
    for (const schema::TaskAddress& a : schema::taskAddresses(e.cluster)) {
        if (a.type != "chief" && a.type != "worker")
            continue;
        if (o.taskNames.empty()) {
            o.rendezvousHost = reachableHost(a.host);
            o.rendezvousPort = static_cast<int>(a.port);
        }
        if (a.name() == task.task) {
            o.rank = static_cast<int>(o.taskNames.size());
            o.host = reachableHost(a.host);
            found = true;
        }
        o.taskNames.push_back(a.name());
    }
    if (!found) {
        std::string list;
        for (const auto& n : o.taskNames)
            list += (list.empty() ? "" : ", ") + n;
        throw ConfigError("cluster", "task " + task.task + " does not train under MultiWorkerMirrored: the cluster's "
                                     "chief and workers are " + list);
    }
    if (task.token.empty())
        throw ConfigError("strategy.type", "MultiWorkerMirrored needs the job's token on standard input (the first "
                                           "line; the launcher sends it to every task)");
    o.token = task.token;
    o.timeout = std::chrono::milliseconds(static_cast<int64_t>(e.strategy.timeoutSeconds * 1000));
    o.joinTimeout = std::chrono::milliseconds(static_cast<int64_t>(e.strategy.startupTimeoutSeconds * 1000));
    return o;
}

// Mirrored's gradient all-reduce: in-process on CPUs and on logical devices of one GPU, NCCL
// across physical GPUs.
std::unique_ptr<Communicator> mirroredCommunicator(const std::vector<Device>& devices)
{
    const bool oneGpu = std::all_of(devices.begin(), devices.end(), [&](const Device& d) {
        return !d.isCpu() && gpu::physicalIndex(d.index) == gpu::physicalIndex(devices.front().index);
    });
    if (devices.front().isCpu() || oneGpu)
        return std::make_unique<InProcessCommunicator>(devices);
    return createNcclCommunicator(devices);
}

} // namespace

namespace {

std::unique_ptr<Strategy> createStrategyOnDevices(const schema::Experiment& e, const HostDevices& host,
                                                  const TaskContext& task)
{
    const schema::StrategySpec& s = e.strategy;
    const std::string type = s.effectiveType();
    if (type == "Default") {
        // tf.distribute.get_strategy(): the first device, no distribution.
        const Device d = host.defaultDevices().front();
        return std::make_unique<SingleDeviceStrategy>("Default", e, d, computeThreadsPerReplica(e, 1, host));
    }
    if (type == "OneDevice") {
        const Device d = resolveDevice(s.device, "strategy.device", host);
        return std::make_unique<SingleDeviceStrategy>("OneDevice", e, d, computeThreadsPerReplica(e, 1, host));
    }
    if (type == "Mirrored") {
        auto devices = resolveDevices(s.devices, "strategy.devices", host);
        const int threads = computeThreadsPerReplica(e, static_cast<int>(devices.size()), host);
        auto communicator = mirroredCommunicator(devices);
        return std::make_unique<MirroredStrategy>(e, std::move(devices), threads, std::move(communicator));
    }
    if (type == "CentralStorage") {
        auto compute = resolveDevices(s.computeDevices, "strategy.compute_devices", host);
        const Device parameters = resolveDevice(s.parameterDevice, "strategy.parameter_device", host);
        const int threads = computeThreadsPerReplica(e, static_cast<int>(compute.size()), host);
        return std::make_unique<CentralStorageStrategy>(e, std::move(compute), parameters, threads);
    }
    if (type == "MultiWorkerMirrored") {
        auto devices = resolveDevices(s.devices.empty() ? std::vector<std::string>{"cpu:0"} : s.devices,
                                      "strategy.devices", host);
        auto options = jobOf(e, task);
        const int threads = e.training.threads > 0
                                ? static_cast<int>(e.training.threads)
                                : std::max(1, taskThreads(e, host, task) / static_cast<int>(devices.size()));
        return std::make_unique<MultiWorkerMirroredStrategy>(e, std::move(devices), threads,
                                                             std::make_unique<ProcessGroup>(std::move(options)));
    }
    throw ConfigError("strategy.type", s.type + " cannot run in this engine version");
}

} // namespace

int taskThreads(const schema::Experiment& e, const HostDevices& host, const TaskContext& task)
{
    if (e.training.threads > 0)
        return static_cast<int>(e.training.threads);
    if (!schema::runsAsTasks(e.strategy.effectiveType()))
        return host.cores;
    // The chief and the workers compute; an evaluator takes a share beside them when it evaluates.
    int64_t sharing = schema::tasksOnHostOf(e.cluster, task.task, {"chief", "worker"});
    if (task.task.starts_with("evaluator:"))
        sharing += 1;
    return std::max(1, host.cores / static_cast<int>(std::max<int64_t>(1, sharing)));
}

std::unique_ptr<Strategy> createStrategy(const schema::Experiment& e, const HostDevices& host, const TaskContext& task)
{
    // A coordinator's or a worker's view (strata/training/parameter_server_tasks.h has the tasks). Its tasks compute on
    // CPUs in float32 and have never checked training.precision: that stays as it was.
    if (e.strategy.effectiveType() == "ParameterServer")
        return std::make_unique<ps::ParameterServerStrategy>(e, task, taskThreads(e, host, task));
    auto strategy = createStrategyOnDevices(e, host, task);
    if (e.training.precision != "float32" && strategy->devices().front().isCpu())
        throw ConfigError("training.precision", e.training.precision + " runs on GPUs; this strategy's devices are "
                                                "CPUs (" + strategy->devices().front().str() + "...)");
    if (e.training.precision == "mixed_bfloat16")
        strategy->enableLossScaling();
    return strategy;
}

} // namespace strata::run
