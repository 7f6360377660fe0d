#pragma once
// The CUDA module's entry point: what the engine lends the module (its GPU settings) and the
// tables the module returns. The engine (engine/tensor/gpu_module.cpp)
// loads the module with dlopen and calls the entry once; an engine and a module of different
// versions refuse each other.

#include "strata/tensor/gpu.h"

namespace strata::cuda {

class Ops;
class Collectives;

struct Host {
    int (*physicalIndex)(int index);
    gpu::Precision (*precision)();
};

struct Module {
    Ops* ops = nullptr;
    Collectives* collectives = nullptr;
};

// Changed with Host, Module, Ops or Collectives.
inline constexpr int kModuleVersion = 1;
inline constexpr const char* kModuleEntry = "strata_cuda_module";
// nullptr when `version` is not the module's.
using ModuleEntry = const Module* (*)(int version, const Host* host);

} // namespace strata::cuda
