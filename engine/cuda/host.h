#pragma once
// Inside the CUDA module: the engine's GPU settings, as lent at load (module.h).

#include "module.h"

namespace strata::cuda {

const Host& host();

} // namespace strata::cuda
