#include "app/plan/scaling_model.h"

#include "app/plan/plan_calibration.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace strata::app::plan {

namespace {

QString ms(double seconds) { return QString::number(seconds * 1e3, 'f', seconds < 0.01 ? 3 : 2) + " ms"; }

// The compute time of one replica's step at `threads` threads while `copies` such replicas
// (processes or replica threads) share a host of `cores` cores, from the measured points:
// alone, time(T) = A + B / T through (1 thread) and (all cores) (Amdahl's form); with the
// host's cores filled, the loaded point's factor, reached linearly as copies grow; beyond the
// cores, the loaded time stretched by threads wanted / cores.
struct ComputeAt {
    double seconds = 0;
    double alone = 0;   // the same replica alone on the host
    double stretch = 1; // seconds / alone
};

double pointSeconds(const ComputeProbe& c, int threads, int copies)
{
    for (const ComputePoint& p : c.points)
        if (p.threads == threads && p.copies == copies)
            return p.step.typical();
    return 0;
}

ComputeAt computeAt(const ComputeProbe& c, int cores, int threads, int copies)
{
    const double one = pointSeconds(c, 1, 1);
    const double all = cores > 1 ? pointSeconds(c, cores, 1) : one;
    double alone = pointSeconds(c, threads, 1);
    if (alone <= 0) {
        const double t = std::min(threads, cores);
        const double b = cores > 1 && all > 0 ? (one - all) / (1.0 - 1.0 / cores) : 0;
        alone = (one - b) + b / t;
    }
    // The factor a full host puts on a replica's step: measured at these threads if the probe
    // ran them loaded, else at 1 thread.
    const int fullCopies = std::max(1, cores / std::max(1, threads));
    double loadedAt = pointSeconds(c, threads, fullCopies);
    const double factor = loadedAt > 0 && pointSeconds(c, threads, 1) > 0
                              ? loadedAt / pointSeconds(c, threads, 1)
                              : (cores > 1 && pointSeconds(c, 1, cores) > 0 ? pointSeconds(c, 1, cores) / one : 1.0);
    const double loaded = alone * std::max(1.0, factor);
    const int wanted = threads * copies;
    ComputeAt out;
    out.alone = alone;
    if (wanted > cores)
        out.seconds = loaded * static_cast<double>(wanted) / cores;
    else if (copies <= 1 || fullCopies <= 1)
        out.seconds = alone;
    else
        out.seconds = alone + (loaded - alone) * static_cast<double>(copies - 1) / (fullCopies - 1);
    out.stretch = alone > 0 ? out.seconds / alone : 1;
    return out;
}

// Core-seconds of one replica's step when the host is full (the work that competes for cores).
double computeWork(const ComputeProbe& c, int cores)
{
    const double one = pointSeconds(c, 1, 1);
    const double loaded = cores > 1 ? pointSeconds(c, 1, cores) : one;
    return loaded > 0 ? loaded : one;
}

// The input pipeline's part of a step: hidden behind the step by prefetch (on a thread of its
// own) unless it takes longer than the step.
double exposedInput(const ComputeProbe& c, double stepWithoutInput)
{
    return c.prefetch > 0 ? std::max(0.0, c.input.typical() - stepWithoutInput) : c.input.typical();
}

int threadsFor(const PlanRequest& r, int copiesOnHost)
{
    return r.threadsPerWorker > 0 ? r.threadsPerWorker : std::max(1, r.coresPerHost / std::max(1, copiesOnHost));
}

// Workers go on the hosts at hand, round robin; with scaleOut, those beyond the hosts at hand's
// share go on more hosts like them.
int hostsFor(const PlanRequest& r, int workers)
{
    const int hostsAtHand = std::max(1, r.hostsAtHand);
    if (!r.scaleOut)
        return std::max(1, std::min(hostsAtHand, workers));
    const int perHost = std::max(1, r.workersAtHand / hostsAtHand);
    return std::max(std::min(hostsAtHand, workers), (workers + perHost - 1) / perHost);
}

} // namespace

std::vector<int> defaultWorkerCounts(int workersAtHand)
{
    std::set<int> counts{1, 2, 4, 8, 16, 64};
    if (workersAtHand > 0)
        counts.insert(workersAtHand);
    return {counts.begin(), counts.end()};
}

QString strategyName(Strategy s)
{
    switch (s) {
    case Strategy::OneDevice: return QStringLiteral("OneDevice");
    case Strategy::Mirrored: return QStringLiteral("Mirrored");
    case Strategy::CentralStorage: return QStringLiteral("CentralStorage");
    case Strategy::MultiWorkerMirrored: return QStringLiteral("MultiWorkerMirrored");
    case Strategy::ParameterServer: return QStringLiteral("ParameterServer");
    }
    return {};
}

std::optional<Strategy> strategyNamed(const QString& name)
{
    if (name == QLatin1String("Default"))
        return Strategy::OneDevice;
    for (Strategy s : {Strategy::OneDevice, Strategy::Mirrored, Strategy::CentralStorage, Strategy::MultiWorkerMirrored,
                       Strategy::ParameterServer})
        if (strategyName(s) == name)
            return s;
    return std::nullopt;
}

double ringAllReduceSeconds(int n, double bytes, double latencySeconds, double bytesPerSecond)
{
    if (n <= 1)
        return 0;
    return 2.0 * (n - 1) * latencySeconds + (bytesPerSecond > 0 ? 2.0 * (n - 1) / n * bytes / bytesPerSecond : 0.0);
}

namespace {

// The sweep's measurement against its fit at the point nearest `bytes` (in ratio): the fit
// gives the shape over sizes and rank counts, the measurement the level where it was taken.
double collectiveFit(const CollectiveProbe& c, int n, double bytes);

double sweepCorrection(const CollectiveProbe& c, double bytes)
{
    const CollectivePoint* nearest = nullptr;
    for (const CollectivePoint& p : c.points)
        if (p.bytes > 0 && p.seconds.typical() > 0 &&
            (!nearest || std::abs(std::log(p.bytes / bytes)) < std::abs(std::log(nearest->bytes / bytes))))
            nearest = &p;
    if (!nearest)
        return 1.0;
    const double fit = collectiveFit(c, c.ranks, static_cast<double>(nearest->bytes));
    return fit > 0 ? nearest->seconds.typical() / fit : 1.0;
}

// The formula with the fitted terms: halving-doubling's 2 log2(n) latency steps where the
// engine picks it, else the ring's 2(n-1).
double collectiveFit(const CollectiveProbe& c, int n, double bytes)
{
    if (n <= 1)
        return 0;
    if (n >= c.halvingDoublingFromRanks && bytes <= static_cast<double>(c.halvingDoublingUpToBytes)) {
        const double steps = 2.0 * std::ceil(std::log2(static_cast<double>(n)));
        return steps * c.latencySeconds + (c.bytesPerSecond > 0 ? 2.0 * (n - 1) / n * bytes / c.bytesPerSecond : 0.0);
    }
    return ringAllReduceSeconds(n, bytes, c.latencySeconds, c.bytesPerSecond);
}

// The all-reduce of one bucket as the engine runs it, corrected by the sweep where it measured
// near that size.
double allReduceSeconds(const CollectiveProbe& c, int n, double bytes)
{
    return n <= 1 ? 0 : collectiveFit(c, n, bytes) * sweepCorrection(c, bytes);
}

// MultiWorkerMirrored's buckets, as the engine forms them: whole variables from the last,
// each closed once it holds `bucketBytes`; each ready when its first variable's gradient is.
struct Bucket {
    double bytes = 0;
    double ready = 0;
};
std::vector<Bucket> bucketsOf(const ComputeProbe& c, int64_t bucketBytes)
{
    std::vector<Bucket> out;
    Bucket open;
    bool any = false;
    for (size_t i = c.variableBytes.size(); i-- > 0;) {
        open.bytes += static_cast<double>(c.variableBytes[i]);
        open.ready = i < c.gradientReadySeconds.size() ? c.gradientReadySeconds[i] : c.backwardSeconds;
        any = true;
        if (open.bytes >= static_cast<double>(bucketBytes) || i == 0) {
            out.push_back(open);
            open = {};
            any = false;
        }
    }
    if (any)
        out.push_back(open);
    return out;
}

Prediction base(const PlanRequest& request, Strategy strategy, int workers)
{
    Prediction p;
    p.strategy = strategy;
    p.workers = workers;
    p.hosts = 1;
    p.globalBatch = request.batchPerReplica * workers;
    return p;
}

void finish(Prediction& p, double jobStepsPerSecond, double examplesPerJobStep)
{
    p.samplesPerSecond = jobStepsPerSecond * examplesPerJobStep;
}

Prediction predictOneProcess(const ProbeResult& probe, const PlanRequest& r, Strategy strategy, int replicas)
{
    const ComputeProbe& c = probe.compute;
    const int cores = r.coresPerHost;
    Prediction p = base(r, strategy, replicas);
    ModelTerms& t = p.terms;
    t.processesPerHost = 1;
    t.threadsPerWorker = threadsFor(r, replicas);
    const ComputeAt at = computeAt(c, cores, t.threadsPerWorker, replicas);
    t.compute = at.seconds;
    t.stretch = at.stretch;
    p.coresShared = t.threadsPerWorker * replicas > cores;
    if (replicas > 1) {
        // The in-process sum of the replicas' gradients: one pass over each extra replica's
        // gradient, about half an Adam update's memory traffic (docs/planner.md).
        t.communication = (replicas - 1) * c.optimizerSeconds / 2.0;
        t.exposed = t.communication;
        if (strategy == Strategy::CentralStorage) // one update, on the central copy, not one per replica in parallel
            t.compute += c.optimizerSeconds * (at.stretch > 0 ? 1.0 : 0.0);
    }
    t.input = exposedInput(c, t.compute + t.exposed);
    const double unconstrained = t.compute + t.exposed + t.input;
    // The cores: every replica's work under load and its input, and the reduction.
    t.coresBound = (replicas * (computeWork(c, cores) + c.input.typical()) + t.communication) / cores;
    p.stepSeconds = std::max(unconstrained, t.coresBound);
    if (t.coresBound > unconstrained)
        t.limit = QStringLiteral("cores");
    else
        t.limit = t.exposed > 0.2 * p.stepSeconds ? QStringLiteral("communication") : QStringLiteral("compute");
    t.formula = QStringLiteral("step = compute %1 (%2 thread(s) x %3 replica(s) on %4 cores%5)")
                    .arg(ms(t.compute))
                    .arg(t.threadsPerWorker)
                    .arg(replicas)
                    .arg(cores)
                    .arg(at.stretch > 1.02 ? QStringLiteral(", stretched x%1").arg(at.stretch, 0, 'f', 2) : QString());
    if (replicas > 1)
        t.formula += QStringLiteral(" + in-process reduction (r-1) x update/2 = %1").arg(ms(t.exposed));
    if (t.input > 0)
        t.formula += QStringLiteral(" + input %1").arg(ms(t.input));
    t.formula += QStringLiteral("; at least the cores' %1").arg(ms(t.coresBound));
    finish(p, 1.0 / p.stepSeconds, static_cast<double>(p.globalBatch));
    return p;
}

// `overhead`: seconds a step takes beyond the modelled parts with the replica alone on its
// cores (stretched as the compute is).
Prediction predictMultiWorker(const ProbeResult& probe, const PlanRequest& r, int workers, double overhead)
{
    const ComputeProbe& c = probe.compute;
    const CollectiveProbe& coll = probe.collective;
    const int cores = r.coresPerHost;
    Prediction p = base(r, Strategy::MultiWorkerMirrored, workers);
    p.hosts = hostsFor(r, workers);
    ModelTerms& t = p.terms;
    const int perHost = (workers + p.hosts - 1) / p.hosts;
    t.processesPerHost = perHost;
    t.threadsPerWorker = threadsFor(r, perHost);
    const ComputeAt at = computeAt(c, cores, t.threadsPerWorker, perHost);
    t.compute = at.seconds;
    t.stretch = at.stretch;
    p.coresShared = t.threadsPerWorker * perHost > cores;

    // Where the workers' threads outnumber the cores, the collectives as the crowded sweep
    // measured them (each step waiting for a peer's turn on a core).
    const CollectiveProbe& sweep = p.coresShared && probe.crowdedCollective ? *probe.crowdedCollective : coll;
    // Buckets reduced one after another on the group's thread, each from when its gradients
    // are final (the backward pass stretched as the compute is).
    double free = 0, total = 0;
    const std::vector<Bucket> buckets = bucketsOf(c, std::max<int64_t>(r.bucketBytes, 1));
    for (const Bucket& b : buckets) {
        const double d = allReduceSeconds(sweep, workers, b.bytes);
        free = std::max(free, b.ready * at.stretch) + d;
        total += d;
    }
    const double backward = c.backwardSeconds * at.stretch;
    t.communication = total;
    t.exposed = workers > 1 ? std::max(0.0, free - backward) : 0.0;
    t.overlapped = t.communication - t.exposed;
    t.input = exposedInput(c, t.compute + t.exposed);
    const double unconstrained = t.compute + t.exposed + t.input;
    // The host's cores: every worker on it computes (its work under load), reads its input and
    // runs its collectives (their CPU, measured during the sweep) each step.
    const double coreSeconds =
        perHost * (computeWork(c, cores) + c.input.typical() + t.communication * std::min(1.0, sweep.cpuPerSecond));
    t.coresBound = coreSeconds / cores;
    // The overhead after the bound the parts meet: at the rehearsal's point the step is what it
    // measured; stretched as the compute is where cores are shared.
    t.overhead = overhead * at.stretch;
    p.stepSeconds = std::max(t.compute, std::max(unconstrained, t.coresBound) + t.overhead);
    if (t.coresBound > unconstrained)
        t.limit = QStringLiteral("cores");
    else
        t.limit = t.exposed > 0.2 * p.stepSeconds ? QStringLiteral("communication") : QStringLiteral("compute");

    const bool hd = workers >= sweep.halvingDoublingFromRanks;
    t.formula = QStringLiteral("all-reduce %1(n-1) a + 2(n-1)/n S/B = %2 (n=%3, a=%4, S=%5 KiB in %6 bucket(s), B=%7 MB/s%8)")
                    .arg(hd ? QStringLiteral("2 log2(n) a [halving-doubling where the engine picks it], or 2") : QStringLiteral("2"))
                    .arg(ms(t.communication))
                    .arg(workers)
                    .arg(ms(sweep.latencySeconds))
                    .arg(static_cast<double>(probe.gradientBytes) / 1024.0, 0, 'f', 1)
                    .arg(buckets.size())
                    .arg(sweep.bytesPerSecond / 1e6, 0, 'f', 0)
                    .arg(&sweep == &coll ? QString()
                                         : QStringLiteral(", as %1 processes sharing %2 cores measured").arg(sweep.ranks).arg(cores));
    t.formula += QStringLiteral("; exposed past the backward pass (%1) %2; step = max(compute %3 + exposed + input %4, "
                                "cores %5)")
                     .arg(ms(backward), ms(t.exposed), ms(t.compute), ms(t.input), ms(t.coresBound));
    if (overhead != 0)
        t.formula += QStringLiteral(" %1 %2 beyond these parts (the probe's rehearsal of %3 workers: %4 a step)")
                         .arg(t.overhead < 0 ? QStringLiteral("-") : QStringLiteral("+"))
                         .arg(ms(std::abs(t.overhead)))
                         .arg(coll.ranks)
                         .arg(ms(coll.rehearsal.typical()));
    finish(p, 1.0 / p.stepSeconds, static_cast<double>(p.globalBatch));
    return p;
}

// What MultiWorkerMirrored's steps took in the probe's rehearsal beyond the parts the model
// adds up (0 without a rehearsal), per step of a replica alone on its cores: the model at the
// rehearsal's ranks, threads and one host against what it measured.
double rehearsalOverhead(const ProbeResult& probe, const PlanRequest& r)
{
    const CollectiveProbe& coll = probe.collective;
    if (coll.rehearsal.samples == 0 || coll.rehearsal.typical() <= 0)
        return 0;
    PlanRequest asRehearsed = r;
    asRehearsed.hostsAtHand = 1;
    asRehearsed.workersAtHand = coll.ranks;
    asRehearsed.scaleOut = false;
    asRehearsed.threadsPerWorker = coll.rehearsalThreads;
    const Prediction modelled = predictMultiWorker(probe, asRehearsed, coll.ranks, 0.0);
    const double stretch = modelled.terms.stretch > 0 ? modelled.terms.stretch : 1.0;
    return (coll.rehearsal.typical() - modelled.stepSeconds) / stretch;
}

// A ParameterServer job as a closed queueing network, solved by mean value analysis: `n`
// workers, each step one visit to the busiest ps (one server: its CPU per worker step), to the
// hosts' cores (`servers` of them, which also run the ps's serving; by Seidmann's approximation
// a queue of demand / servers plus a delay of what a worker alone spends beyond that) and to a
// pure delay (the round trip's time on no CPU). Taking the bounds' minimum instead (n / the step alone, 1 / the ps,
// the cores) ignores that each worker's pull waits behind the others' pushes and that four
// processes on two cores wait for each other's turn: 30-40% optimistic on 2 cores.
struct PsNetwork {
    double psDemand = 0;   // the busiest ps's CPU per worker step
    double coreDemand = 0; // core-seconds of a worker step, the ps's serving of it included
    double ownWork = 0;    // what those take one worker alone (its threads in parallel)
    int servers = 1;       // the hosts' cores
    double delay = 0;      // the round trip's time on no CPU
};

struct PsSolution {
    double stepsPerSecond = 0; // worker steps, the job's
    double cycle = 0;          // one worker's step as the job runs
    double psBusy = 0;         // utilisations
    double coresBusy = 0;
};

PsSolution solve(const PsNetwork& net, int workers)
{
    const double coreQueue = net.coreDemand / std::max(1, net.servers);
    const double coreDelay = std::max(0.0, net.ownWork - coreQueue);
    PsSolution out;
    double psQueued = 0, coresQueued = 0; // mean customers at each queue with one worker fewer
    for (int k = 1; k <= std::max(1, workers); ++k) {
        const double atPs = net.psDemand * (1 + psQueued);
        const double atCores = coreQueue * (1 + coresQueued);
        out.cycle = net.delay + atPs + atCores + coreDelay;
        out.stepsPerSecond = k / out.cycle;
        psQueued = out.stepsPerSecond * atPs;
        coresQueued = out.stepsPerSecond * atCores;
    }
    out.psBusy = out.stepsPerSecond * net.psDemand;
    out.coresBusy = out.stepsPerSecond * coreQueue;
    return out;
}

Prediction predictParameterServer(const ProbeResult& probe, const PlanRequest& r, int workers)
{
    const ComputeProbe& c = probe.compute;
    const PsProbe& ps = *probe.ps;
    const int cores = r.coresPerHost;
    Prediction p = base(r, Strategy::ParameterServer, workers);
    p.globalBatch = r.batchPerReplica; // each step is one worker's batch
    p.hosts = hostsFor(r, workers);
    p.psTasks = std::max(1, r.psTasks);
    ModelTerms& t = p.terms;
    const int perHost = (workers + p.hosts - 1) / p.hosts;
    t.processesPerHost = perHost + (p.psTasks + p.hosts - 1) / p.hosts;
    // A worker computes with the experiment's threads, else all the host's cores (one replica).
    t.threadsPerWorker = r.threadsPerWorker > 0 ? r.threadsPerWorker : cores;
    const ComputeAt alone = computeAt(c, cores, t.threadsPerWorker, 1);
    t.compute = alone.seconds;
    p.coresShared = t.threadsPerWorker * perHost + 1 > cores; // + the ps serving

    // A worker's pull and push go to every ps at once: the busiest link sets the round trip.
    const double share = std::clamp(r.busiestPsShare, 1.0 / p.psTasks, 1.0);
    const double bytes = static_cast<double>(ps.variableBytes) * share;
    const double pullPush = ps.latencySeconds + (ps.bytesPerSecond > 0 ? 2.0 * bytes / ps.bytesPerSecond : 0.0);
    // The coordinator gives every step to a worker and hears its result: one small exchange.
    const double dispatch = ps.smallRoundTrip.typical();
    t.communication = pullPush + dispatch;
    t.exposed = t.communication;
    t.input = exposedInput(c, t.compute + t.exposed);
    t.psService = ps.serverCpuSeconds * share;

    PsNetwork net;
    net.psDemand = t.psService;
    net.coreDemand = computeWork(c, cores) + c.input.typical() + ps.workerCpuSeconds + dispatch + ps.serverCpuSeconds;
    net.ownWork = t.compute + t.input + ps.workerCpuSeconds + dispatch;
    net.servers = p.hosts * cores;
    net.delay = std::max(0.0, pullPush - ps.workerCpuSeconds - t.psService);
    const PsSolution job = solve(net, workers);
    t.coresBound = net.coreDemand / net.servers;
    // The step stretched by the other workers' turns at the ps and the cores.
    t.stretch = job.cycle / solve(net, 1).cycle;
    if (std::max(job.psBusy, job.coresBusy) >= 0.8)
        t.limit = job.psBusy >= job.coresBusy ? QStringLiteral("ps") : QStringLiteral("cores");
    else
        t.limit = t.exposed > t.compute ? QStringLiteral("communication") : QStringLiteral("compute");
    p.stepSeconds = job.cycle;
    t.formula = QStringLiteral("worker step alone = pull+push a + 2 s S/B = %1 (a=%2, s=%3 of S=%4 KiB on the busiest of %5 ps, "
                               "B=%6 MB/s) + the coordinator's order %7 + compute %8 + input %9; %10 workers queue at the "
                               "ps (%11 of its CPU a step) and at %12 cores (%13 of CPU a step, the ps's included), by mean value "
                               "analysis: a step %14 as the job runs, the ps %15% busy, the cores %16%")
                    .arg(ms(pullPush), ms(ps.latencySeconds))
                    .arg(share, 0, 'f', 2)
                    .arg(static_cast<double>(ps.variableBytes) / 1024.0, 0, 'f', 1)
                    .arg(p.psTasks)
                    .arg(ps.bytesPerSecond / 1e6, 0, 'f', 0)
                    .arg(ms(dispatch), ms(t.compute), ms(t.input))
                    .arg(workers)
                    .arg(ms(t.psService))
                    .arg(net.servers)
                    .arg(ms(net.coreDemand), ms(job.cycle))
                    .arg(job.psBusy * 100, 0, 'f', 0)
                    .arg(job.coresBusy * 100, 0, 'f', 0);
    finish(p, job.stepsPerSecond, static_cast<double>(r.batchPerReplica));
    return p;
}

} // namespace

Prediction predict(const ProbeResult& probe, const PlanRequest& request, Strategy strategy, int workers,
                   double calibration)
{
    Prediction p;
    switch (strategy) {
    case Strategy::OneDevice: p = predictOneProcess(probe, request, strategy, 1); break;
    case Strategy::Mirrored:
    case Strategy::CentralStorage: p = predictOneProcess(probe, request, strategy, workers); break;
    case Strategy::MultiWorkerMirrored:
        // One worker reduces nothing: the overhead is the all-reduce's company (bucket copies,
        // the caches and threads it disturbs).
        p = predictMultiWorker(probe, request, workers, workers > 1 ? rehearsalOverhead(probe, request) : 0.0);
        break;
    case Strategy::ParameterServer: p = predictParameterServer(probe, request, workers); break;
    }
    p.extrapolated = p.hosts > request.hostsAtHand;
    p.calibration = calibration;
    p.samplesPerSecond *= calibration;
    return p;
}

} // namespace strata::app::plan
