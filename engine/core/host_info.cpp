#include "strata/core/host_info.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace strata {

std::string hostName()
{
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0)
        return "unknown";
    return buf;
}

std::string cpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.starts_with("model name")) {
            const auto colon = line.find(':');
            if (colon != std::string::npos)
                return line.substr(line.find_first_not_of(' ', colon + 1));
        }
    }
    return "unknown CPU";
}

namespace {
// A "Key:   123 kB" line of a /proc file, in bytes.
int64_t procKilobytes(const char* file, const char* key)
{
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (line.starts_with(key)) {
            std::istringstream fields(line.substr(std::string(key).size()));
            int64_t kb = 0;
            fields >> kb;
            return kb * 1024;
        }
    }
    return 0;
}
} // namespace

int64_t totalMemoryBytes() { return procKilobytes("/proc/meminfo", "MemTotal:"); }
int64_t residentMemoryBytes() { return procKilobytes("/proc/self/status", "VmRSS:"); }

int64_t peakResidentMemoryBytes()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

} // namespace strata
