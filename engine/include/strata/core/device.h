#pragma once
// Where a tensor lives and a replica computes: "cpu:N" (a logical CPU device) or "gpu:N".

#include <compare>
#include <string>
#include <string_view>

namespace strata {

struct Device {
    enum class Kind { Cpu, Gpu };
    Kind kind = Kind::Cpu;
    int index = 0;

    static Device cpu(int index = 0) { return {Kind::Cpu, index}; }
    static Device gpu(int index) { return {Kind::Gpu, index}; }
    // Accepts "cpu:0", "gpu:1", "/cpu:0", "/gpu:0", "cpu", "gpu" (index 0); throws ConfigError.
    static Device parse(std::string_view text);

    bool isCpu() const { return kind == Kind::Cpu; }
    std::string str() const;

    friend auto operator<=>(const Device&, const Device&) = default;
};

} // namespace strata
