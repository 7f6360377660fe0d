#pragma once
// What this host is: its name, CPU model, memory, and this process's resident memory.

#include <cstdint>
#include <string>

namespace strata {

std::string hostName();
std::string cpuModel();
int64_t totalMemoryBytes();
// Resident memory now, and the peak since the process started.
int64_t residentMemoryBytes();
int64_t peakResidentMemoryBytes();

} // namespace strata
