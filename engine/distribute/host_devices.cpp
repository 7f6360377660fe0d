#include "strata/distribute/host_devices.h"

#include "strata/core/host_info.h"
#include "strata/tensor/blas.h"
#include "strata/tensor/gpu.h"

namespace strata::distribute {

HostDevices HostDevices::probe(int64_t logicalCpuDevices, int64_t logicalGpuDevices)
{
    HostDevices h;
    h.cores = blas::availableCores();
    h.logicalCpus = logicalCpuDevices > 0 ? static_cast<int>(logicalCpuDevices) : h.cores;
    h.gpus = static_cast<int>(gpu::devices().size());
    if (logicalGpuDevices > 0 && h.gpus > 0)
        h.gpus = static_cast<int>(logicalGpuDevices);
    return h;
}

bool HostDevices::has(const Device& d) const
{
    return d.index >= 0 && d.index < (d.isCpu() ? logicalCpus : gpus);
}

std::vector<Device> HostDevices::defaultDevices() const
{
    std::vector<Device> out;
    const bool useGpus = gpus > 0;
    for (int i = 0; i < (useGpus ? gpus : logicalCpus); ++i)
        out.push_back(useGpus ? Device::gpu(i) : Device::cpu(i));
    return out;
}

nlohmann::ordered_json HostDevices::describe() const
{
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    const std::string cpu = cpuModel();
    for (int i = 0; i < logicalCpus; ++i)
        list.push_back({{"name", Device::cpu(i).str()},
                        {"kind", "cpu"},
                        {"description", cpu},
                        {"cores", cores},
                        {"logical_devices", logicalCpus},
                        {"memory_bytes", totalMemoryBytes()}});
    const auto physical = gpu::devices();
    for (int i = 0; i < gpus; ++i) {
        const auto& g = physical.at(static_cast<size_t>(gpus == static_cast<int>(physical.size()) ? i : 0));
        nlohmann::ordered_json d{{"name", Device::gpu(i).str()},
                                 {"kind", "gpu"},
                                 {"description", g.name},
                                 {"memory_bytes", g.memoryBytes},
                                 {"compute_capability",
                                  std::to_string(g.computeMajor) + "." + std::to_string(g.computeMinor)},
                                 {"backend", gpu::backendDescription()}};
        if (gpus != static_cast<int>(physical.size()))
            d["physical_device"] = Device::gpu(g.index).str();
        list.push_back(std::move(d));
    }
    return list;
}

void configureGpus(const schema::Experiment& e, const HostDevices& host)
{
    if (host.gpus > 0)
        gpu::setLogicalDevices(static_cast<int>(e.strategy.logicalGpuDevices));
    const std::string& p = e.training.precision;
    gpu::setPrecision(p == "tf32"             ? gpu::Precision::Tf32
                      : p == "mixed_bfloat16" ? gpu::Precision::MixedBfloat16
                                              : gpu::Precision::Float32);
}

namespace {
std::string missing(const Device& d, const HostDevices& host)
{
    if (d.isCpu())
        return d.str() + " does not exist on this host: it offers " + std::to_string(host.logicalCpus) +
               " logical CPU devices (strategy.logical_cpu_devices creates more)";
    if (host.gpus == 0)
        return d.str() + " does not exist on this host: no GPU was found (" + gpu::whyNoGpus() + ")";
    return d.str() + " does not exist on this host: it has " + std::to_string(host.gpus) + " GPU" +
           (host.gpus == 1 ? "" : "s");
}
} // namespace

Device resolveDevice(const std::string& name, const std::string& path, const HostDevices& host)
{
    const Device d = Device::parse(name);
    if (!host.has(d))
        throw ConfigError(path, missing(d, host));
    return d;
}

std::vector<Device> resolveDevices(const std::vector<std::string>& names, const std::string& path,
                                   const HostDevices& host)
{
    if (names.empty())
        return host.defaultDevices();
    std::vector<Device> out;
    std::vector<ConfigProblem> problems;
    for (size_t i = 0; i < names.size(); ++i) {
        const Device d = Device::parse(names[i]);
        if (!host.has(d))
            problems.push_back({path + "[" + std::to_string(i) + "]", missing(d, host)});
        out.push_back(d);
    }
    if (!problems.empty())
        throw ConfigError(problems);
    return out;
}

} // namespace strata::distribute
