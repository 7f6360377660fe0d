#pragma once
// The `device` event's fields: each replica's device busy time (its thread's CPU seconds over
// the window, or a GPU's own figures from NVML), the variable bytes it holds, and the
// process's memory.

#include "strata/distribute/strategy.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace strata::run {

// `cpuSince`: strategy.replicaCpuSeconds() at the window's start, `wallSeconds` ago.
nlohmann::ordered_json deviceEventFields(distribute::Strategy& strategy, int64_t step, double wallSeconds,
                                         const std::vector<double>& cpuSince);

} // namespace strata::run
