#include "strata/dist/strategy.h"

#include "central_storage_strategy.h"
#include "mirrored_strategy.h"
#include "single_device_strategy.h"
#include "strata/dist/in_process_communicator.h"

namespace strata::dist {

std::unique_ptr<Strategy> createStrategy(const spec::Experiment& e, const HostDevices& host)
{
    const spec::StrategySpec& s = e.strategy;
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
        auto communicator = std::make_unique<InProcessCommunicator>(static_cast<int>(devices.size()));
        return std::make_unique<MirroredStrategy>(e, std::move(devices), threads, std::move(communicator));
    }
    if (type == "CentralStorage") {
        auto compute = resolveDevices(s.computeDevices, "strategy.compute_devices", host);
        const Device parameters = resolveDevice(s.parameterDevice, "strategy.parameter_device", host);
        const int threads = computeThreadsPerReplica(e, static_cast<int>(compute.size()), host);
        return std::make_unique<CentralStorageStrategy>(e, std::move(compute), parameters, threads);
    }
    throw ConfigError("strategy.type", s.type + " cannot run in this engine version");
}

} // namespace strata::dist
