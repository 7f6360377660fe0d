// The CUDA module's one exported symbol (module.h); everything else in it is hidden. The
// module carries its own copy of the engine's error classes (core/error.cpp): libstdc++
// matches a thrown type to a handler by its name, so the engine catches them as its own.

#include "collectives.h"
#include "cuda_ops.h"
#include "host.h"
#include "nccl_collectives.h"

namespace strata::cuda {

namespace {
const Host* g_host = nullptr;
} // namespace

const Host& host() { return *g_host; }

CudaOps& backend()
{
    static CudaOps ops;
    return ops;
}

} // namespace strata::cuda

extern "C" __attribute__((visibility("default"))) const strata::cuda::Module* strata_cuda_module(
    int version, const strata::cuda::Host* host)
{
    using namespace strata::cuda;
    if (version != kModuleVersion || !host)
        return nullptr;
    g_host = host;
    static NcclCollectives collectives;
    static const Module module{&backend(), &collectives};
    return &module;
}
