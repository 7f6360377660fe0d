#pragma once
// NCCL communicators (built with the CUDA backend; callers reach them under
// `if constexpr (cuda::kBuilt)`). Buffers are device memory of each rank's GPU; each rank's
// collective runs on its thread's stream, and a call returns when it has completed there.
// A rank that does not finish within the timeout aborts the communicator (ncclCommAbort), so
// every rank's collective fails with CollectiveError instead of hanging.

#include "strata/core/device.h"
#include "strata/dist/communicator.h"

#include <memory>
#include <vector>

namespace strata::dist {

// One rank per device, all in this process (physical GPUs: NCCL refuses two ranks on one).
std::unique_ptr<Communicator> createNcclCommunicator(const std::vector<Device>& devices);

} // namespace strata::dist
