#include "strata/dist/host_devices.h"

#include "strata/run/host_info.h"
#include "strata/tensor/blas.h"

namespace strata::dist {

HostDevices HostDevices::probe(int64_t logicalCpuDevices)
{
    HostDevices h;
    h.cores = blas::availableCores();
    h.logicalCpus = logicalCpuDevices > 0 ? static_cast<int>(logicalCpuDevices) : h.cores;
    h.gpus = 0; // the CUDA backend is not part of this engine yet
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
    const std::string cpu = run::cpuModel();
    for (int i = 0; i < logicalCpus; ++i)
        list.push_back({{"name", Device::cpu(i).str()},
                        {"kind", "cpu"},
                        {"description", cpu},
                        {"cores", cores},
                        {"logical_devices", logicalCpus},
                        {"memory_bytes", run::totalMemoryBytes()}});
    return list;
}

namespace {
std::string missing(const Device& d, const HostDevices& host)
{
    if (d.isCpu())
        return d.str() + " does not exist on this host: it offers " + std::to_string(host.logicalCpus) +
               " logical CPU devices (strategy.logical_cpu_devices creates more)";
    return d.str() + " does not exist on this host: no GPU was found (this engine is built without the CUDA "
                     "backend)";
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

} // namespace strata::dist
