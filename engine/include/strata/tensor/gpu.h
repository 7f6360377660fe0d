#pragma once
// The GPUs this process can use and their utilization and memory, through the CUDA module
// (engine/cuda, loaded on first use: engine/tensor/gpu_module.cpp). Without the CUDA backend,
// a driver or the CUDA libraries there are none, and whyNoGpus() says which. Also the
// backend's process-wide settings (logical devices, TF32), which the session sets from the
// experiment before any GPU work.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::gpu {

struct GpuInfo {
    int index = 0;
    std::string name;
    size_t memoryBytes = 0;
    int computeMajor = 0;
    int computeMinor = 0;
};

struct GpuUsage {
    double utilization = 0; // percent of time a kernel ran over the last sample period
    size_t memoryUsedBytes = 0;
    size_t memoryTotalBytes = 0;
};

// True when this engine was built with the CUDA backend (its module may still fail to load).
bool backendBuilt();
// "CUDA 13.0, cuDNN 9.13, NCCL 2.28" (the libraries loaded), or why there is no GPU backend:
// "none (...)". Loads the module.
std::string backendDescription();
// The GPUs visible to this process (CUDA_VISIBLE_DEVICES applies); empty without the backend,
// a driver or the CUDA libraries. Loads the module only where the driver sees a GPU.
std::vector<GpuInfo> devices();
// Why devices() is empty ("no NVIDIA driver (...)", "the CUDA module could not be loaded:
// ..."); empty when it is not.
std::string whyNoGpus();
// Utilization and memory of physical GPU `index` now; nullopt where NVML is not available.
std::optional<GpuUsage> usage(int index);

// The best rate, in GFLOP/s, of `reps` n x n x n float32 GEMMs through cuBLAS on gpu:index
// (the benchmark's compute reference). Throws GpuError without the backend or the GPU.
double sgemmGflops(int index, int64_t n, int reps);

// Makes gpu:0..count-1 logical devices of the first physical GPU, as
// tf.config.set_logical_device_configuration does (0: gpu:N is physical GPU N). Set once, by
// the session, before any GPU work; the backend maps every gpu:N through physicalIndex().
void setLogicalDevices(int count);
int logicalDevices();
int physicalIndex(int index);

// What the GPU's tensor cores may do with float32 data (training.precision), float32 storage
// and accumulation throughout:
//  - Float32: plain float32 arithmetic (the default);
//  - Tf32: GEMMs and convolutions on TF32 tensor cores (10-bit mantissa products);
//  - MixedBfloat16: GEMMs on bfloat16 tensor cores (cuBLAS's 32F_FAST_16BF), convolutions
//    on TF32 ones (cuDNN's legacy API has no bfloat16 conversion for float32 data).
enum class Precision { Float32, Tf32, MixedBfloat16 };
void setPrecision(Precision precision);
Precision precision();

} // namespace strata::gpu
