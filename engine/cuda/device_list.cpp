// The GPUs the CUDA runtime sees, the libraries' versions, and each GPU's utilization and
// memory through NVML (loaded at run time: it comes with the driver, not the toolkit).

#include "cuda_ops.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <nccl.h>

namespace strata::cuda {

namespace {

// The few NVML entry points the engine uses, declared as the NVML C API defines them (NVML's
// header is not part of the toolkit here; the library comes with the driver).
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
struct NvmlUtilization {
    unsigned gpu;
    unsigned memory;
};
struct NvmlMemory {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

struct Nvml {
    NvmlReturn (*init)() = nullptr;
    NvmlReturn (*byPciBusId)(const char*, NvmlDevice*) = nullptr;
    NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;
    NvmlReturn (*memory)(NvmlDevice, NvmlMemory*) = nullptr;
    bool ok = false;
};

const Nvml& nvml()
{
    static Nvml n = [] {
        Nvml v;
        void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            return v;
        v.init = reinterpret_cast<NvmlReturn (*)()>(dlsym(lib, "nvmlInit_v2"));
        v.byPciBusId = reinterpret_cast<NvmlReturn (*)(const char*, NvmlDevice*)>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
        v.utilization =
            reinterpret_cast<NvmlReturn (*)(NvmlDevice, NvmlUtilization*)>(dlsym(lib, "nvmlDeviceGetUtilizationRates"));
        v.memory = reinterpret_cast<NvmlReturn (*)(NvmlDevice, NvmlMemory*)>(dlsym(lib, "nvmlDeviceGetMemoryInfo"));
        v.ok = v.init && v.byPciBusId && v.utilization && v.memory && v.init() == 0;
        return v;
    }();
    return n;
}

} // namespace

std::string CudaOps::description()
{
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    int nccl = 0;
    ncclGetVersion(&nccl);
    const size_t cudnn = cudnnGetVersion();
    return "CUDA " + std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10) + ", cuDNN " +
           std::to_string(cudnn / 10000) + "." + std::to_string(cudnn / 100 % 100) + ", NCCL " +
           std::to_string(nccl / 10000) + "." + std::to_string(nccl / 100 % 100);
}

std::vector<gpu::GpuInfo> CudaOps::devices()
{
    // Asked once: creating the CUDA context is slow, and the answer does not change.
    static const std::vector<gpu::GpuInfo> list = [] {
        std::vector<gpu::GpuInfo> out;
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess) {
            cudaGetLastError(); // no driver or no device: no GPUs
            return out;
        }
        for (int i = 0; i < count; ++i) {
            cudaDeviceProp p{};
            if (cudaGetDeviceProperties(&p, i) != cudaSuccess)
                continue;
            out.push_back({i, p.name, p.totalGlobalMem, p.major, p.minor});
        }
        return out;
    }();
    return list;
}

std::optional<gpu::GpuUsage> CudaOps::usage(int index)
{
    const Nvml& n = nvml();
    if (!n.ok)
        return std::nullopt;
    // NVML numbers devices its own way; the PCI bus id names the same one CUDA calls `index`
    // (CUDA_VISIBLE_DEVICES included).
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, index) != cudaSuccess)
        return std::nullopt;
    NvmlDevice device = nullptr;
    NvmlUtilization u{};
    NvmlMemory m{};
    if (n.byPciBusId(bus, &device) != 0 || n.utilization(device, &u) != 0 || n.memory(device, &m) != 0)
        return std::nullopt;
    return gpu::GpuUsage{static_cast<double>(u.gpu), static_cast<size_t>(m.used), static_cast<size_t>(m.total)};
}

} // namespace strata::cuda
