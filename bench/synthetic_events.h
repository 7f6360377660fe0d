#pragma once
// Event lines as strata-engine writes them (docs/event-schema.md), for the benchmarks that
// feed the app without training anything.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace benchevents {

constexpr int64_t kStepsPerWindow = 10; // steps per live `step` event (stepLine's "steps")

// std::to_string(v) ("%f"), without printf: the emitter of strata-bench-dashboard must write
// its lines faster than the app reads them, on the same cores.
inline std::string fixed(double v)
{
    char text[64];
    const auto end = std::to_chars(text, text + sizeof text, v, std::chars_format::fixed, 6).ptr;
    return std::string(text, end);
}

// A loss that falls with the steps (plus `offset`) and wiggles.
inline double lossAt(int64_t step, double offset)
{
    return offset + 0.3 + 2.0 / (1.0 + 0.001 * double(step)) + 0.05 * std::sin(double(step) * 0.37);
}

// A `step` window of `task` at `step` (10 steps a window), `replicas` replicas, the loss of
// lossAt(), throughput `samplesPerSec`.
inline std::string stepLine(int64_t step, int replicas, const std::string& task = "worker:0", double offset = 0,
                            double samplesPerSec = 20000)
{
    const double loss = lossAt(step, offset);
    std::string line = R"({"v":1,"type":"step","t":)" + fixed(1763800000.0 + double(step) * 1e-3) +
                       R"(,"task":")" + task + R"(","step":)" + std::to_string(step) +
                       R"(,"epoch":0,"steps":)" + std::to_string(kStepsPerWindow) + R"(,"loss":)" + fixed(loss) + R"(,"replicas":[)";
    for (int r = 0; r < replicas; ++r) {
        line += R"({"replica":)" + std::to_string(r) + R"(,"device":"cpu:)" + std::to_string(r) +
                R"(","loss":)" + fixed(loss * (1.0 + 0.01 * r)) + R"(,"samples":320})";
        line += r + 1 < replicas ? "," : "";
    }
    line += R"(],"metrics":{"accuracy":0.81},"lr":0.001,"time_ms":{"step":1.6,"compute":1.4,"comm":0.1,"input":0.05},)"
            R"("samples_per_sec":)" + fixed(samplesPerSec + double(step % 1000)) + "}\n";
    return line;
}

// The full-resolution record of `step` (steps-<task>.jsonl), as the engine writes it: its
// compute and gradient reduction took `computeMs` and `commMs`, its input 0.05 ms.
inline std::string recordLine(int64_t step, int replicas, double offset = 0, double computeMs = 1.4, double commMs = 0.1)
{
    const double loss = lossAt(step, offset);
    std::string line = R"({"t":)" + fixed(1763800000.0 + double(step) * 1e-3) + R"(,"step":)" + std::to_string(step) +
                       R"(,"epoch":0,"loss":)" + fixed(loss) + R"(,"replica_loss":[)";
    for (int r = 0; r < replicas; ++r)
        line += fixed(loss * (1.0 + 0.01 * r)) + (r + 1 < replicas ? "," : "");
    line += R"(],"samples":)" + std::to_string(32 * replicas) +
            R"(,"lr":0.001,"step_ms":)" + fixed(computeMs + commMs + 0.1) + R"(,"compute_ms":)" + fixed(computeMs) +
            R"(,"comm_ms":)" + fixed(commMs) + R"(,"input_ms":0.05,"metrics":{"accuracy":)" +
            fixed(0.8 - 0.5 / double(step)) + "}}\n";
    return line;
}

// A `device` report of `task` at `step`: its one device `utilization` busy, its process `rssBytes`.
inline std::string deviceLine(int64_t step, const std::string& task, double utilization, double rssBytes)
{
    return R"({"v":1,"type":"device","t":)" + fixed(1763800000.0 + double(step) * 1e-3) + R"(,"task":")" + task +
           R"(","step":)" + std::to_string(step) + R"(,"window_ms":1000,"devices":[{"device":"cpu:0","replica":0,)"
           R"("utilization":)" + fixed(utilization) + R"(,"variable_bytes":4096}],"process":{"rss_bytes":)" +
           fixed(rssBytes) + "}}\n";
}

} // namespace benchevents
