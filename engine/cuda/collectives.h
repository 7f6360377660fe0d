#pragma once
// The CUDA module's NCCL collectives, for the distribute room's GPU communicators
// (distribute/nccl_communicator.h holds their contract). CUDA-free.

#include "strata/core/device.h"
#include "strata/distribute/communicator.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace strata::distribute {
class DeviceGroup;
}

namespace strata::cuda {

// One task's place in a communicator of several processes.
struct GroupJoin {
    Device device;
    std::string uniqueId; // from the group's rank 0 (Collectives::uniqueId)
    int size = 0;
    int rank = 0;
    std::chrono::milliseconds timeout{0};
    // Turns a failure into the message thrown: the caller adds the task that left, if one did.
    std::function<std::string(const std::string& what)> explain;
};

class Collectives {
public:
    virtual ~Collectives() = default;
    // One rank per device, all in this process (physical GPUs: NCCL refuses two ranks on one).
    virtual std::unique_ptr<distribute::Communicator> communicator(const std::vector<Device>& devices) = 0;
    // A new NCCL unique id, made on `device`, as bytes to send to the group's other tasks.
    virtual std::string uniqueId(int device) = 0;
    // Joins the communicator named by `join.uniqueId` (within the timeout).
    virtual std::unique_ptr<distribute::DeviceGroup> join(const GroupJoin& join) = 0;
};

// The CUDA module's collectives, loading it on first use; throws GpuError naming why when it
// cannot be loaded (engine/tensor/gpu_module.cpp).
Collectives& collectives();

} // namespace strata::cuda
