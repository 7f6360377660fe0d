#include "device_context.h"

#include "cuda_check.h"
#include "host.h"
#include "strata/core/error.h"

#include <array>
#include <memory>
#include <mutex>
#include <vector>

namespace strata::cuda {

void throwGpuError(int device, const char* call, const char* what)
{
    throw GpuError("gpu:" + std::to_string(device) + ": " + call + ": " + what);
}

namespace {

constexpr int kMaxDevices = 64;

struct LaneWithWorkspace {
    Lane lane;
    void* workspace = nullptr;
    size_t workspaceBytes = 0;
};

// Lanes whose thread has ended, per device. Never destroyed: the CUDA context goes with the
// process, and destroying handles during exit races the runtime's own teardown.
struct LanePool {
    std::mutex mutex;
    std::array<std::vector<LaneWithWorkspace*>, kMaxDevices> free;
};
LanePool& pool()
{
    static auto* p = new LanePool;
    return *p;
}

LaneWithWorkspace* createLane(int device)
{
    auto* l = new LaneWithWorkspace;
    STRATA_GPU_CHECK(device, cudaStreamCreateWithFlags(&l->lane.stream, cudaStreamNonBlocking));
    STRATA_GPU_CHECK(device, cublasCreate(&l->lane.cublas));
    STRATA_GPU_CHECK(device, cublasSetStream(l->lane.cublas, l->lane.stream));
    STRATA_GPU_CHECK(device, cudnnCreate(&l->lane.cudnn));
    STRATA_GPU_CHECK(device, cudnnSetStream(l->lane.cudnn, l->lane.stream));
    return l;
}

// This thread's lanes; handed back to the pool when the thread ends.
struct ThreadLanes {
    std::array<LaneWithWorkspace*, kMaxDevices> lanes{};
    ~ThreadLanes()
    {
        std::lock_guard lock(pool().mutex);
        for (int d = 0; d < kMaxDevices; ++d)
            if (lanes[d])
                pool().free[d].push_back(lanes[d]);
    }
};
thread_local ThreadLanes t_lanes;

LaneWithWorkspace& laneWithWorkspace(int device)
{
    if (device < 0 || device >= kMaxDevices)
        throw GpuError("gpu:" + std::to_string(device) + " is not a device index this build supports");
    STRATA_GPU_CHECK(device, cudaSetDevice(host().physicalIndex(device)));
    LaneWithWorkspace*& l = t_lanes.lanes[device];
    if (!l) {
        {
            std::lock_guard lock(pool().mutex);
            auto& reusable = pool().free[device];
            if (!reusable.empty()) {
                l = reusable.back();
                reusable.pop_back();
            }
        }
        if (!l)
            l = createLane(device);
    }
    return *l;
}

} // namespace

Lane& lane(int device) { return laneWithWorkspace(device).lane; }

CachingAllocator& allocator(int device)
{
    static std::mutex mutex;
    static std::array<CachingAllocator*, kMaxDevices> allocators{};
    std::lock_guard lock(mutex);
    CachingAllocator*& a = allocators.at(static_cast<size_t>(device));
    if (!a) {
        // Leaked on purpose, like the lanes: freeing device memory at exit is the driver's job.
        a = new CachingAllocator({[device](size_t bytes) -> void* {
                                      void* p = nullptr;
                                      cudaSetDevice(host().physicalIndex(device));
                                      const cudaError_t e = cudaMalloc(&p, bytes);
                                      if (e == cudaErrorMemoryAllocation) {
                                          cudaGetLastError(); // clear it: the caller may retry
                                          return nullptr;
                                      }
                                      check(e, device, "cudaMalloc(&p, bytes)");
                                      return p;
                                  },
                                  [device](void* p) {
                                      cudaSetDevice(host().physicalIndex(device));
                                      check(cudaFree(p), device, "cudaFree(p)");
                                  }});
    }
    return *a;
}

void* workspace(int device, size_t bytes)
{
    LaneWithWorkspace& l = laneWithWorkspace(device);
    if (bytes > l.workspaceBytes) {
        if (l.workspace)
            allocator(device).deallocate(l.workspace);
        l.workspace = allocator(device).allocate(bytes, l.lane.stream);
        if (!l.workspace)
            throw GpuError("gpu:" + std::to_string(device) + ": out of memory for a " + std::to_string(bytes >> 20) +
                           " MiB cuDNN workspace");
        l.workspaceBytes = bytes;
    }
    return l.workspace;
}

} // namespace strata::cuda
