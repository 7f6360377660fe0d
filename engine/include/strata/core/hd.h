#pragma once
// STRATA_HD marks arithmetic that the CPU loops and the CUDA kernels share (engine/nn/math):
// one definition of each formula, so the CPU tests cover the GPU's arithmetic and the GPU
// tests only its launch. Headers using it stay C++17 (nvcc compiles them as such).

#if defined(__CUDACC__)
#define STRATA_HD __host__ __device__
#else
#define STRATA_HD
#endif
