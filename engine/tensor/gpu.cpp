#include "strata/tensor/gpu.h"

#include "cuda/ops.h"
#include "gpu_module.h"
#include "strata/core/error.h"
#include "strata/tensor/tensor.h"

#include <atomic>
#include <chrono>

namespace strata::gpu {

namespace {
std::atomic<int> g_logicalDevices{0};
std::atomic<Precision> g_precision{Precision::Float32};

struct Found {
    std::vector<GpuInfo> devices;
    std::string why; // why there are none
};

// Asked once: the driver first, so that a machine without a GPU never loads the module.
const Found& found()
{
    static const Found f = []() -> Found {
        if (!cuda::moduleKnown())
            return {{}, "this engine is built without the CUDA backend"};
        const cuda::DriverAnswer driver = cuda::askDriver();
        if (driver.gpus == 0)
            return {{}, driver.why};
        try {
            auto list = cuda::ops().devices();
            return {list, list.empty() ? "the CUDA runtime sees none" : ""};
        } catch (const GpuError&) {
            return {{}, cuda::moduleError()};
        }
    }();
    return f;
}
} // namespace

void setPrecision(Precision p) { g_precision = p; }
Precision precision() { return g_precision; }

void setLogicalDevices(int count) { g_logicalDevices = count; }
int logicalDevices() { return g_logicalDevices; }
int physicalIndex(int index) { return g_logicalDevices > 0 ? 0 : index; }

bool backendBuilt() { return cuda::moduleKnown(); }

std::string backendDescription()
{
    try {
        return cuda::ops().description();
    } catch (const GpuError&) {
        return "none (" + cuda::moduleError() + ")";
    }
}

std::vector<GpuInfo> devices() { return found().devices; }
std::string whyNoGpus() { return found().why; }

std::optional<GpuUsage> usage(int index)
{
    if (devices().empty())
        return std::nullopt;
    return cuda::ops().usage(index);
}

double sgemmGflops(int index, int64_t n, int reps)
{
    const Device d = Device::gpu(index);
    Tensor a = Tensor::full({n, n}, 0.01f, d), b = Tensor::full({n, n}, 0.02f, d), c({n, n}, d);
    cuda::Ops& ops = cuda::ops();
    const auto product = [&] { ops.gemm(index, false, false, n, n, n, 1.0f, a.data(), b.data(), 0.0f, c.data()); };
    product(); // loads cuBLAS's kernels
    ops.synchronize(index);
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        const auto start = std::chrono::steady_clock::now();
        product();
        ops.synchronize(index);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / best / 1e9;
}

} // namespace strata::gpu
