#pragma once
// What this host offers: name, CPU, memory, the devices the engine can use (for `hello`).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace strata::run {

std::string hostName();
std::string cpuModel();
int64_t totalMemoryBytes();
// Resident memory now, and the peak since the process started.
int64_t residentMemoryBytes();
int64_t peakResidentMemoryBytes();
// The `hello` event fields: engine version, host, pid, devices, BLAS.
nlohmann::ordered_json helloFields();

} // namespace strata::run
