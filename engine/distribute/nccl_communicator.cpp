// The GPU communicators, made by the CUDA module's collectives (cuda/collectives.h); what
// needs the job's rendezvous stays here: sending rank 0's NCCL id to the other tasks, and
// naming the task that left when a collective fails.

#include "nccl_communicator.h"

#include "cuda/collectives.h"
#include "strata/distribute/process_group.h"

namespace strata::distribute {

std::unique_ptr<Communicator> createNcclCommunicator(const std::vector<Device>& devices)
{
    return cuda::collectives().communicator(devices);
}

std::unique_ptr<DeviceGroup> createNcclGroup(ProcessGroup& group, Device device)
{
    cuda::Collectives& nccl = cuda::collectives();
    std::string id = group.rank() == 0 ? nccl.uniqueId(device.index) : std::string();
    group.broadcast(id, 0);
    // The ProcessGroup's barrier names a task that left (its connection closed), if one did.
    const auto explain = [&group, device](const std::string& what) {
        try {
            group.barrier();
        } catch (const CollectiveError& lost) {
            return what + "; " + lost.what();
        }
        return what + " on " + group.taskName(group.rank()) + " (" + device.str() + ")";
    };
    return nccl.join({device, std::move(id), group.size(), group.rank(), group.timeout(), explain});
}

} // namespace strata::distribute
