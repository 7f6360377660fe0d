#pragma once
// The scaling model (docs/planner.md): from a probe and a request, a prediction per strategy
// and worker count, the recommendation, the warnings and the noise verdict. Pure functions.
//
//   MultiWorkerMirrored, n workers: step = compute + input + exposed, where the ring all-reduce
//     of the gradient's S bytes takes T(S) = 2(n-1) a + 2(n-1)/n S/B, split into buckets that
//     start as the backward pass finishes their variables: exposed = what of the buckets'
//     reductions runs past the end of the backward pass (at least the last bucket's);
//   ParameterServer, n workers, p ps: a worker's step = pull + compute + push, the round trip
//     a_ps + 2 s S / B_ps over the busiest ps link (s: its share of the variables); workers are
//     asynchronous, so the job makes n / step steps a second unless the busiest ps, serving
//     every worker, is slower: then 1 / (n x its service time);
//   Mirrored / CentralStorage, r replicas on one host: compute at the threads each replica
//     gets, plus the in-process reduction (the loopback fit's bandwidth, no latency);
//   shared cores: processes x threads above a host's cores stretch compute by that ratio (the
//     loaded compute time measured), and the job's core-seconds per step (compute, and the
//     CPU the collectives or the ps use) cannot exceed the cores: step >= core-seconds / cores.
// throughput = global batch / step (ParameterServer: n x batch / step), speedup = throughput /
// one OneDevice replica's, efficiency = speedup / n.

#include "app/plan/scaling_plan.h"

namespace strata::app::plan {

// The worker counts predicted when the request names none: the nodes at hand, 2, 4, 8, 16, 64.
std::vector<int> defaultWorkerCounts(int workersAtHand);

// Ring all-reduce of `bytes` between `n` ranks with the fitted latency and bandwidth.
double ringAllReduceSeconds(int n, double bytes, double latencySeconds, double bytesPerSecond);

// One prediction (calibration factor applied when given).
Prediction predict(const ProbeResult& probe, const PlanRequest& request, Strategy strategy, int workers,
                   double calibration = 1.0);

// Everything: predictions for each strategy that applies and each worker count, the
// recommendation, warnings and noise verdict.
ScalingPlan planScaling(const ProbeResult& probe, const PlanRequest& request, const Calibration& calibration = {});

// The rules of the recommendation (one device: OneDevice; one host, several devices: Mirrored;
// several hosts: MultiWorkerMirrored; ParameterServer when workers are many and slow or the
// variables huge), checked against the predictions.
Recommendation recommend(const std::vector<Prediction>& predictions, const ProbeResult& probe,
                         const PlanRequest& request);

// Too noisy when any measurement the predictions rest on has a coefficient of variation above
// the threshold.
NoiseVerdict noiseVerdict(const ProbeResult& probe, double threshold = 0.15);

} // namespace strata::app::plan
