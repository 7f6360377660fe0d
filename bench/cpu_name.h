#pragma once
// The CPU a benchmark ran on, named beside its figures: "Intel(R) Xeon(R) Processor @ 2.50GHz
// (family 6, model 143), 2 cores, AVX-512", from /proc/cpuinfo.

#include <unistd.h>

#include <fstream>
#include <string>

namespace strata::bench {

inline std::string cpuName()
{
    std::ifstream f("/proc/cpuinfo");
    if (!f)
        return "unknown CPU";
    std::string line, model, family, number, flags;
    while (std::getline(f, line)) {
        const auto colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        std::string key = line.substr(0, colon);
        key.erase(key.find_last_not_of(" \t") + 1);
        const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : std::string();
        if (key == "model name" && model.empty())
            model = value;
        else if (key == "cpu family" && family.empty())
            family = value;
        else if (key == "model" && number.empty())
            number = value;
        else if (key == "flags" && flags.empty())
            flags = " " + value + " ";
    }
    const std::string isa = flags.find(" avx512f ") != std::string::npos ? "AVX-512"
                            : flags.find(" avx2 ") != std::string::npos  ? "AVX2"
                                                                          : "no AVX2";
    return model + " (family " + family + ", model " + number + "), " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) +
           " cores, " + isa;
}

} // namespace strata::bench
