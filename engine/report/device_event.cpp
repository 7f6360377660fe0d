#include "strata/report/device_event.h"

#include "strata/core/host_info.h"
#include "strata/tensor/gpu.h"

#include <algorithm>

namespace strata::run {

nlohmann::ordered_json deviceEventFields(distribute::Strategy& strategy, int64_t step, double wall,
                                         const std::vector<double>& cpuSince)
{
    const auto cpu = strategy.replicaCpuSeconds();
    const auto& devices = strategy.devices();
    // Variables and their optimizer state, per device holding a copy.
    const auto placement = strategy.placement();
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (size_t r = 0; r < devices.size(); ++r) {
        int64_t variableBytes = 0;
        for (const auto& v : placement.variables)
            for (const auto& d : v.devices)
                if (d == devices[r].str())
                    variableBytes += v.bytes;
        const double busy = r < cpuSince.size() ? cpu[r] - cpuSince[r] : 0.0;
        nlohmann::ordered_json d{{"device", devices[r].str()},
                                 {"replica", r},
                                 {"utilization", wall > 0 ? std::min(1.0, busy / wall) : 0.0},
                                 {"busy_ms", busy * 1000.0},
                                 {"variable_bytes", variableBytes}};
        // A GPU's own figures, from NVML (the whole GPU, whichever process uses it).
        if (!devices[r].isCpu()) {
            if (const auto usage = gpu::usage(gpu::physicalIndex(devices[r].index))) {
                d["utilization"] = usage->utilization / 100.0;
                d["memory_used_bytes"] = usage->memoryUsedBytes;
                d["memory_total_bytes"] = usage->memoryTotalBytes;
            }
        }
        list.push_back(std::move(d));
    }
    return {{"step", step},
            {"window_ms", wall * 1000.0},
            {"devices", list},
            {"process", {{"rss_bytes", residentMemoryBytes()}, {"peak_rss_bytes", peakResidentMemoryBytes()}}}};
}

} // namespace strata::run
