#pragma once
// The CUDA module's loader, as the tensor room's GPU functions (gpu.cpp) see it; ops() and
// collectives() are declared with their tables (cuda/ops.h, cuda/collectives.h).

#include <string>

namespace strata::cuda {

// True when this engine knows where a CUDA module may be (built with CUDA, or
// STRATA_CUDA_MODULE set); the module may still fail to load.
bool moduleKnown();
// Why the module is not loaded, loading it if it was not tried yet; empty once loaded.
std::string moduleError();

struct DriverAnswer {
    int gpus = 0;
    std::string why; // why there are none
};
// How many GPUs the NVIDIA driver sees, asked of the driver library alone.
DriverAnswer askDriver();

} // namespace strata::cuda
