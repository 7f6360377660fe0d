#pragma once
// The scaling planner's measurements (`strata-engine plan-probe`, docs/planner.md): the
// experiment's step on one replica, an all-reduce sweep on a process group, and a
// ParameterServer worker's round trip. Each function measures in this process; starting the
// other processes (rank processes, the ps task) is the worker command's (engine/worker), the
// only engine code that forks.

#include "strata/distribute/process_group.h"
#include "strata/schema/experiment.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <vector>

namespace strata::run {

// Repeated timings summarized: {"median", "cv" (standard deviation / mean), "robust_cv"
// (1.4826 x median absolute deviation / median), "samples"}.
nlohmann::ordered_json spreadJson(const std::vector<double>& samples);

// One replica of the experiment's model stepping on its own data: per measured step, the whole
// step (forward, loss, backward, optimizer) and its parts, and when each variable's gradient
// became final (from the start of the backward pass).
struct ComputeTiming {
    std::vector<double> step, forward, backward, optimizer, input; // seconds, one per measured step
    std::vector<double> gradientReady;                             // per variable: the median
    std::vector<int64_t> variableBytes;
};

// `steps` steps, or more until `minSeconds` have passed (at most 5000), after `warmup`, at `threads` compute threads and the experiment's
// training.batch_size (the per-replica batch); the input pipeline's time per batch is timed
// with prefetch off. Loads the experiment's data (DataError, ConfigError as training would).
ComputeTiming timeCompute(const schema::Experiment& experiment, int threads, int warmup, int steps,
                          double minSeconds = 0);

// Fit of t(S) = c a + d S / B over the sweep (d = 2(n-1)/n; c the latency steps of the
// algorithm the group runs at that size: 2(n-1) for the ring, 2 log2(n) for halving-doubling),
// least squares on the relative error (small and large sizes weigh alike).
struct RingFit {
    double latency = 0;        // a, seconds
    double bytesPerSecond = 0; // B
    double relativeError = 0;  // RMS of (fit - measured) / measured
};
RingFit fitRing(int ranks, const std::vector<int64_t>& bytes, const std::vector<double>& seconds);

// On every rank of `group` (every rank calls it, the same sizes): for each size, `reps` timed
// rounds of all-reduces (several calls each for small sizes), queued in place as
// MultiWorkerMirrored reduces its buckets, by the algorithm the group chooses for the size; per size the seconds per call of each round and this process's CPU seconds
// per call. {"bytes": [..], "seconds": [[..] per size], "cpu_seconds": [..]}
// `workBetween` seconds: each call after that long busy on this thread (untimed), as a step's
// compute comes between a job's all-reduces.
nlohmann::ordered_json timeAllReduce(distribute::ProcessGroup& group, const std::vector<int64_t>& sizes, int reps,
                                     double workBetween = 0);

// ParameterServer: this process as the job's coordinator and its one worker against the ps
// task already started for `experiment` (a ParameterServer experiment with one ps): round
// trips (pull every variable, push every gradient, the ps applying the optimizer) after
// `warmup`, at least `reps` and at least `minSeconds` of them. `serverCpu` says the ps task's
// CPU seconds so far. {"variable_bytes", "seconds": [..], "cpu_seconds" and "server_cpu_s":
// per round trip}. Ends the ps task (shutdown) before returning.
nlohmann::ordered_json timePsRoundTrips(const schema::Experiment& experiment, const std::string& token, int warmup,
                                        int reps, double minSeconds, const std::function<double()>& serverCpu);

} // namespace strata::run
