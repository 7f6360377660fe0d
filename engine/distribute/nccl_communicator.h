#pragma once
// NCCL communicators, from the CUDA module (engine/cuda/nccl_collectives.cpp; creating one
// throws GpuError naming why where the module cannot be loaded). Buffers are device memory of
// each rank's GPU; each rank's collective runs on its thread's stream, and a call returns when
// it has completed there.
// A rank that does not finish within the timeout aborts the communicator (ncclCommAbort), so
// every rank's collective fails with CollectiveError instead of hanging.

#include "strata/core/device.h"
#include "strata/distribute/communicator.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace strata::distribute {

class ProcessGroup;

// One rank per device, all in this process (physical GPUs: NCCL refuses two ranks on one).
std::unique_ptr<Communicator> createNcclCommunicator(const std::vector<Device>& devices);

// The tasks of a multi-worker job, one GPU each, in one NCCL communicator: its unique id comes
// from rank 0 through the job's ProcessGroup (the rendezvous), as torch.distributed does.
// Used by one thread (the task's replica); collectives run on its stream.
class DeviceGroup {
public:
    virtual ~DeviceGroup() = default;
    virtual std::string algorithm() const = 0;
    // Starts an in-place sum over the tasks of `data` (device memory), after the work already
    // queued on the stream (the backward pass that produced it).
    virtual void allReduceQueued(std::span<float> data) = 0;
    // Returns when every queued all-reduce has completed. A task that does not finish within
    // the job's timeout aborts the communicator (ncclCommAbort); the CollectiveError then names
    // the task the rendezvous saw leave, when one did.
    virtual void waitQueued() = 0;
};

// Joins the NCCL communicator of `group`'s tasks on `device` (within the group's timeout).
std::unique_ptr<DeviceGroup> createNcclGroup(ProcessGroup& group, Device device);

} // namespace strata::distribute
