#pragma once
// The devices this host offers: logical CPU devices (cpu:0..N-1, like tf.config's logical
// devices; by default one per core) and GPUs (none without the CUDA backend; logical GPUs on
// the first one when the experiment asks for them).

#include "strata/core/device.h"
#include "strata/schema/experiment.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace strata::distribute {

struct HostDevices {
    int cores = 1;
    int logicalCpus = 1;
    int gpus = 0;

    // `logicalCpuDevices` and `logicalGpuDevices` as an experiment declares them (0: one per
    // core; the physical GPUs).
    static HostDevices probe(int64_t logicalCpuDevices = 0, int64_t logicalGpuDevices = 0);

    bool has(const Device& d) const;
    // Every device: the GPUs if there are any, otherwise the logical CPUs (the devices a
    // strategy uses when the experiment names none).
    std::vector<Device> defaultDevices() const;
    // [{"name": "cpu:0", "kind": "cpu", ...}] for `hello` and `strata-engine devices`.
    nlohmann::ordered_json describe() const;
};

// Sets the CUDA backend's process-wide settings from the experiment (its logical GPUs, when the
// host has GPUs, and training.precision), before any GPU work.
void configureGpus(const schema::Experiment& experiment, const HostDevices& host);

// The devices a strategy names, checked against the host (empty: the default devices).
// Throws ConfigError naming the field and the device that does not exist here.
std::vector<Device> resolveDevices(const std::vector<std::string>& names, const std::string& path,
                                   const HostDevices& host);
Device resolveDevice(const std::string& name, const std::string& path, const HostDevices& host);

} // namespace strata::distribute
