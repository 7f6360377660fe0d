// Loads the CUDA module (engine/cuda, libstrata-cuda.so) on first use, and asks the NVIDIA
// driver alone whether there is a GPU before that: the module pulls in cuBLAS, cuDNN and NCCL,
// hundreds of MB that a process on a machine without a GPU never needs.

#include "gpu_module.h"

#include "cuda/module.h"
#include "cuda/ops.h"
#include "strata/core/error.h"
#include "strata/tensor/gpu.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

namespace strata::cuda {

namespace {

struct Loaded {
    const Module* module = nullptr;
    std::string error; // why module is null
};

#ifdef STRATA_CUDA_MODULE_INSTALLED
std::string executableDir()
{
    char path[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return ".";
    const std::string exe(path, static_cast<size_t>(n));
    return exe.substr(0, exe.rfind('/'));
}
#endif

// Where the module may be: STRATA_CUDA_MODULE, else beside an installed engine, else in the
// build tree that built this one.
std::vector<std::string> candidates()
{
    if (const char* path = std::getenv("STRATA_CUDA_MODULE"); path && *path)
        return {path};
    std::vector<std::string> out;
#ifdef STRATA_CUDA_MODULE_INSTALLED
    out.push_back(executableDir() + "/" + STRATA_CUDA_MODULE_INSTALLED);
#endif
#ifdef STRATA_CUDA_MODULE_BUILT
    out.push_back(STRATA_CUDA_MODULE_BUILT);
#endif
    return out;
}

Loaded load()
{
    static const Host host{&gpu::physicalIndex, &gpu::precision};
    const std::vector<std::string> paths = candidates();
    if (paths.empty())
        return {nullptr, "this engine is built without the CUDA backend"};
    std::string looked;
    for (const std::string& path : paths) {
        if (access(path.c_str(), F_OK) != 0) {
            looked += (looked.empty() ? "" : ", ") + path;
            continue;
        }
        void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library)
            return {nullptr, "the CUDA module " + path + " could not be loaded: " + dlerror()};
        const auto entry = reinterpret_cast<ModuleEntry>(dlsym(library, kModuleEntry));
        const Module* module = entry ? entry(kModuleVersion, &host) : nullptr;
        if (!module)
            return {nullptr, path + " is not a CUDA module of this engine's version"};
        return {module, {}};
    }
    return {nullptr, "the CUDA module is not installed (looked for " + looked + ")"};
}

const Loaded& loaded()
{
    static const Loaded l = load();
    return l;
}

const Module& module()
{
    const Loaded& l = loaded();
    if (!l.module)
        throw GpuError("no CUDA backend: " + l.error);
    return *l.module;
}

} // namespace

Ops& ops() { return *module().ops; }
Collectives& collectives() { return *module().collectives; }

bool moduleKnown() { return !candidates().empty(); }
std::string moduleError() { return loaded().error; }

DriverAnswer askDriver()
{
    // The two driver API calls, declared as cuda.h does (CUresult is an int enum).
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!driver)
        return {0, std::string("no NVIDIA driver (") + dlerror() + ")"};
    const auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(driver, "cuInit"));
    const auto count = reinterpret_cast<int (*)(int*)>(dlsym(driver, "cuDeviceGetCount"));
    if (!init || !count)
        return {0, "the NVIDIA driver library has no cuInit or cuDeviceGetCount"};
    if (const int status = init(0); status != 0)
        return {0, "the NVIDIA driver offers no GPU (cuInit returned " + std::to_string(status) + ")"};
    int gpus = 0;
    if (count(&gpus) != 0 || gpus == 0)
        return {0, "the NVIDIA driver sees no GPU"};
    return {gpus, {}};
}

} // namespace strata::cuda
