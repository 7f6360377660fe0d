#include "strata/core/device.h"

#include "strata/core/error.h"

#include <charconv>

namespace strata {

Device Device::parse(std::string_view text)
{
    std::string_view s = text;
    if (!s.empty() && s.front() == '/')
        s.remove_prefix(1);
    // Accept TensorFlow's "/device:GPU:0" spelling as well.
    if (s.starts_with("device:"))
        s.remove_prefix(7);
    Kind kind;
    if (s.size() >= 3 && (s.substr(0, 3) == "cpu" || s.substr(0, 3) == "CPU"))
        kind = Kind::Cpu;
    else if (s.size() >= 3 && (s.substr(0, 3) == "gpu" || s.substr(0, 3) == "GPU"))
        kind = Kind::Gpu;
    else
        throw ConfigError("", "unknown device \"" + std::string(text) + "\" (expected cpu:N or gpu:N)");
    s.remove_prefix(3);
    int index = 0;
    if (!s.empty()) {
        if (s.front() != ':')
            throw ConfigError("", "unknown device \"" + std::string(text) + "\" (expected cpu:N or gpu:N)");
        s.remove_prefix(1);
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), index);
        if (ec != std::errc() || end != s.data() + s.size() || index < 0)
            throw ConfigError("", "bad device index in \"" + std::string(text) + "\"");
    }
    return {kind, index};
}

std::string Device::str() const { return (isCpu() ? "cpu:" : "gpu:") + std::to_string(index); }

} // namespace strata
