#pragma once
// The hand-made probe of a 2-core host that the planner's tests compute their expectations from
// (tst_scaling_model by hand, tst_plan_history through the model).

#include "app/plan/scaling_plan.h"

namespace planfixture {

using namespace strata::app::plan;

inline Spread steady(double median) { return {.median = median, .cv = 0.02, .robustCv = 0.02, .samples = 30}; }

// A host of 2 cores. Compute: 10 ms a step at 1 thread alone, 12 ms with the other core busy
// too, 6 ms at 2 threads. Backward 5.5 ms; variable 0 (800,000 bytes) final 5 ms into it,
// variable 1 (200,000 bytes) at 1 ms. Input 0.1 ms, prefetched. All-reduce a = 0.1 ms,
// B = 1 GB/s, half a core while it runs. ps: a = 0.2 ms, B = 200 MB/s, the worker's CPU 1 ms and
// the ps's 3 ms a round trip.
inline ProbeResult twoCoreProbe()
{
    ProbeResult p;
    p.host = QStringLiteral("here");
    p.cores = 2;
    p.gradientBytes = 1000000;
    p.parameters = 250000;
    ComputeProbe& c = p.compute;
    c.batch = 32;
    c.points = {{1, 1, steady(0.010)}, {1, 2, steady(0.012)}, {2, 1, steady(0.006)}};
    c.forwardSeconds = 0.0035;
    c.backwardSeconds = 0.0055;
    c.optimizerSeconds = 0.001;
    c.gradientReadySeconds = {0.005, 0.001};
    c.variableBytes = {800000, 200000};
    c.input = steady(0.0001);
    c.prefetch = 2;
    CollectiveProbe& k = p.collective;
    k.ranks = 2;
    k.latencySeconds = 1e-4;
    k.bytesPerSecond = 1e9;
    k.cpuPerSecond = 0.5;
    k.points = {{4096, steady(0.0003), 0.0001}, {1000000, steady(0.0012), 0.0006}};
    PsProbe s;
    s.variableBytes = 1000000;
    s.roundTrip = steady(0.0102);
    s.latencySeconds = 2e-4;
    s.bytesPerSecond = 2e8;
    s.workerCpuSeconds = 0.001;
    s.serverCpuSeconds = 0.003;
    s.busiestShareByPsTasks = {1.0, 0.8};
    p.ps = s;
    return p;
}

} // namespace planfixture
