#pragma once
// StepWindow: gathers training steps and turns them into one `step` event per window
// (per-replica means), so the live stream stays small at any step rate.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace strata::run {

struct ReplicaStep {
    std::string device;
    double loss = 0;     // that replica's mean loss on its slice
    int64_t samples = 0;
};

struct StepSample {
    int64_t step = 0;   // global step just completed (from 1)
    int64_t epoch = 0;  // training epoch (from 0)
    double loss = 0;    // mean loss over the global batch, regularization included
    std::vector<ReplicaStep> replicas;
    double stepMs = 0, computeMs = 0, commMs = 0, inputMs = 0;
    double learningRate = 0;
};

class StepWindow {
public:
    void add(const StepSample& sample);
    bool empty() const { return m_steps == 0; }
    // The window as `step` event fields (metrics are the epoch's running values); resets it.
    nlohmann::ordered_json take(const nlohmann::ordered_json& metrics);
    // One sample as a full-resolution record, with `metrics` (the epoch's running values at
    // this step, as a window's) when there are any.
    static nlohmann::ordered_json record(const StepSample& sample,
                                         const nlohmann::ordered_json& metrics = nlohmann::ordered_json::object());

private:
    int64_t m_steps = 0;
    StepSample m_last;
    double m_loss = 0;
    std::vector<ReplicaStep> m_replicas;
    double m_stepMs = 0, m_computeMs = 0, m_commMs = 0, m_inputMs = 0;
};

} // namespace strata::run
