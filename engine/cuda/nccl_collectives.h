#pragma once
// The module's implementation of the collectives table (collectives.h) over NCCL.

#include "collectives.h"

namespace strata::cuda {

class NcclCollectives final : public Collectives {
public:
    std::unique_ptr<distribute::Communicator> communicator(const std::vector<Device>& devices) override;
    std::string uniqueId(int device) override;
    std::unique_ptr<distribute::DeviceGroup> join(const GroupJoin& join) override;
};

} // namespace strata::cuda
