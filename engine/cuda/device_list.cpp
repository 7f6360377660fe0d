#include "strata/tensor/gpu.h"

#include "cuda/ops.h"
#include "strata/core/error.h"
#include "strata/tensor/tensor.h"

#include <chrono>

#if STRATA_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <nccl.h>
#include <dlfcn.h>
#endif


#include <atomic>

namespace strata::gpu {

namespace {
std::atomic<int> g_logicalDevices{0};
std::atomic<Precision> g_precision{Precision::Float32};
} // namespace

void setPrecision(Precision p) { g_precision = p; }
Precision precision() { return g_precision; }

void setLogicalDevices(int count) { g_logicalDevices = count; }
int logicalDevices() { return g_logicalDevices; }
int physicalIndex(int index) { return g_logicalDevices > 0 ? 0 : index; }

#if STRATA_HAVE_CUDA

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

bool backendBuilt() { return true; }

std::string backendDescription()
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

std::vector<GpuInfo> devices()
{
    // Asked once: creating the CUDA context is slow, and the answer does not change.
    static const std::vector<GpuInfo> list = [] {
        std::vector<GpuInfo> out;
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

std::optional<GpuUsage> usage(int index)
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
    return GpuUsage{static_cast<double>(u.gpu), static_cast<size_t>(m.used), static_cast<size_t>(m.total)};
}

double sgemmGflops(int index, int64_t n, int reps)
{
    const Device d = Device::gpu(index);
    Tensor a = Tensor::full({n, n}, 0.01f, d), b = Tensor::full({n, n}, 0.02f, d), c({n, n}, d);
    const auto product = [&] { cuda::gemm(index, false, false, n, n, n, 1.0f, a.data(), b.data(), 0.0f, c.data()); };
    product(); // loads cuBLAS's kernels
    cuda::synchronize(index);
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        const auto start = std::chrono::steady_clock::now();
        product();
        cuda::synchronize(index);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / best / 1e9;
}

#else

double sgemmGflops(int, int64_t, int)
{
    throw GpuError("this engine is built without the CUDA backend");
}

bool backendBuilt() { return false; }
std::string backendDescription() { return "none (this engine is built without the CUDA backend)"; }
std::vector<GpuInfo> devices() { return {}; }
std::optional<GpuUsage> usage(int) { return std::nullopt; }

#endif

} // namespace strata::gpu
