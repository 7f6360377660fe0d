// The planner's advice over the predictions: the plan as a whole, the recommendation with its
// reasons, the warnings and the noise verdict (scaling_model.h).

#include "app/plan/plan_calibration.h"
#include "app/plan/scaling_model.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace strata::app::plan {

namespace {

constexpr int64_t kHugeVariablesBytes = int64_t{1} << 30; // "variables huge": a GiB of them

const Prediction* find(const std::vector<Prediction>& ps, Strategy s, int workers)
{
    for (const Prediction& p : ps)
        if (p.strategy == s && p.workers == workers)
            return &p;
    return nullptr;
}

// The best of a strategy's predictions on the hosts at hand: the highest throughput, the
// fewest workers among those within 3% of it. A distributing strategy counts from 2 workers
// (with one it is OneDevice).
const Prediction* bestAtHand(const std::vector<Prediction>& ps, Strategy s)
{
    const auto counts = [s](const Prediction& p) {
        return p.strategy == s && !p.extrapolated && (s == Strategy::OneDevice || p.workers > 1);
    };
    const Prediction* best = nullptr;
    for (const Prediction& p : ps)
        if (counts(p) && (!best || p.samplesPerSecond > best->samplesPerSecond))
            best = &p;
    if (!best)
        return nullptr;
    for (const Prediction& p : ps)
        if (counts(p) && p.workers < best->workers && p.samplesPerSecond >= 0.97 * best->samplesPerSecond)
            best = &p;
    return best;
}

QString rate(double samplesPerSecond) { return QString::number(samplesPerSecond, 'f', 0) + " samples/s"; }

QString workerList(const std::vector<int>& ns)
{
    QStringList parts;
    for (int n : ns)
        parts << QString::number(n);
    return parts.join(QStringLiteral(", "));
}

} // namespace

NoiseVerdict noiseVerdict(const ProbeResult& probe, double threshold)
{
    NoiseVerdict v;
    v.threshold = threshold;
    double worstMove = 0; // spread x share: how far the worst input moves the predictions
    const auto consider = [&](const QString& what, const Spread& s, double share) {
        if (s.samples > 0 && s.robustCv * share > worstMove) {
            worstMove = s.robustCv * share;
            v.worstCv = s.robustCv;
            v.worstShare = share;
            v.worst = what;
        }
    };
    const ComputeProbe& c = probe.compute;
    for (const ComputePoint& p : c.points)
        consider(QStringLiteral("compute (%1 thread(s), %2 at once)").arg(p.threads).arg(p.copies), p.step, 1.0);
    // The sweep's point nearest the gradient's size: the one the predictions rest on, a share
    // of a step of the probe's workers (their loaded compute and it).
    const CollectivePoint* nearest = nullptr;
    for (const CollectivePoint& p : probe.collective.points)
        if (!nearest || std::abs(std::log(double(p.bytes) / double(std::max<int64_t>(probe.gradientBytes, 1))))
                            < std::abs(std::log(double(nearest->bytes) / double(std::max<int64_t>(probe.gradientBytes, 1)))))
            nearest = &p;
    double loaded = 0;
    for (const ComputePoint& p : c.points)
        if (p.threads == 1 && (loaded == 0 || p.copies == std::min(probe.cores, probe.collective.ranks)))
            loaded = p.step.typical();
    const auto shareOf = [&](double part) { return part > 0 ? part / (part + loaded) : 0.0; };
    if (nearest)
        consider(QStringLiteral("all-reduce of %1 KiB").arg(double(nearest->bytes) / 1024.0, 0, 'f', 0), nearest->seconds,
                 shareOf(nearest->seconds.typical()));
    consider(QStringLiteral("MultiWorkerMirrored's rehearsal"), probe.collective.rehearsal, 1.0);
    if (probe.ps)
        consider(QStringLiteral("ps round trip"), probe.ps->roundTrip, shareOf(probe.ps->roundTrip.typical()));
    const bool busy = probe.otherBusyCores > v.busyThreshold * std::max(1, probe.cores);
    v.tooNoisy = worstMove > threshold || busy;
    const QString share = v.worstShare < 0.995 ? QStringLiteral(", %1% of a step").arg(v.worstShare * 100, 0, 'f', 0)
                                               : QString();
    QStringList why;
    if (worstMove > threshold)
        why << QStringLiteral("%1 varied by %2% (robust coefficient of variation%3: it moves the predictions by "
                              "about %4%, at most %5% expected)")
                   .arg(v.worst)
                   .arg(v.worstCv * 100, 0, 'f', 0)
                   .arg(share)
                   .arg(worstMove * 100, 0, 'f', 0)
                   .arg(threshold * 100, 0, 'f', 0);
    if (busy)
        why << QStringLiteral("other processes kept %1 of the host's %2 cores busy meanwhile")
                   .arg(probe.otherBusyCores, 0, 'f', 1)
                   .arg(probe.cores);
    // Only the host's busy time names other processes: on 2 cores a job's own threads spread
    // an all-reduce's rounds by a third with nothing else running.
    v.text = v.tooNoisy ? QStringLiteral("The probe's timings are too noisy to predict from: %1. %2")
                              .arg(why.join(QStringLiteral("; ")),
                                   busy ? QStringLiteral("Something else is using this host's cores: probe again when it is quieter.")
                                        : QStringLiteral("Probe again: the predictions may be off by as much."))
                        : QStringLiteral("The probe's timings are steady (the most variable, %1, by %2%%3).")
                              .arg(v.worst)
                              .arg(v.worstCv * 100, 0, 'f', 0)
                              .arg(share);
    return v;
}

Recommendation recommend(const std::vector<Prediction>& predictions, const ProbeResult& probe, const PlanRequest& request)
{
    Recommendation r;
    Strategy s = Strategy::OneDevice;
    if (request.hostsAtHand > 1) {
        s = Strategy::MultiWorkerMirrored;
        r.reasons << QStringLiteral("Several hosts (%1): MultiWorkerMirrored keeps a replica on every worker and all-reduces "
                                    "the gradients between them.")
                         .arg(request.hostsAtHand);
    } else if (request.devicesPerHost > 1) {
        s = Strategy::Mirrored;
        r.reasons << QStringLiteral("One host with %1 devices: Mirrored keeps a replica on each and reduces in the process, "
                                    "with no network.")
                         .arg(request.devicesPerHost);
    } else {
        r.reasons << QStringLiteral("One host with one device (a CPU's cores are one device: its threads already use them): "
                                    "OneDevice.");
    }
    // ParameterServer when the variables are huge, or when its asynchronous workers are
    // predicted well ahead (workers many and slow: the all-reduce waits for the slowest).
    const Prediction* chosen = bestAtHand(predictions, s);
    const Prediction* ps = bestAtHand(predictions, Strategy::ParameterServer);
    if (ps && probe.gradientBytes >= kHugeVariablesBytes) {
        s = Strategy::ParameterServer;
        r.reasons << QStringLiteral("The variables are huge (%1 GiB): ParameterServer shards them over its ps tasks instead "
                                    "of a copy on every worker.")
                         .arg(double(probe.gradientBytes) / double(int64_t{1} << 30), 0, 'f', 1);
    } else if (ps && chosen && s != Strategy::OneDevice && ps->samplesPerSecond > 1.1 * chosen->samplesPerSecond) {
        r.reasons << QStringLiteral("ParameterServer is predicted faster here (%1 against %2 at its best on the hosts at hand): "
                                    "its workers do not wait for each other.")
                         .arg(rate(ps->samplesPerSecond), rate(chosen->samplesPerSecond));
        s = Strategy::ParameterServer;
    }
    chosen = bestAtHand(predictions, s);
    const Prediction* one = find(predictions, Strategy::OneDevice, 1);
    if (one && s != Strategy::OneDevice && (!chosen || chosen->samplesPerSecond <= one->samplesPerSecond)) {
        r.reasons << QStringLiteral("But %1 is predicted slower than OneDevice at every worker count on the hosts at hand "
                                    "(at best %2 against %3): OneDevice.")
                         .arg(strategyName(s), rate(chosen ? chosen->samplesPerSecond : 0), rate(one->samplesPerSecond));
        s = Strategy::OneDevice;
        chosen = one;
    }
    r.strategy = s;
    r.workers = chosen ? chosen->workers : 1;
    if (chosen && s != Strategy::OneDevice)
        r.reasons << QStringLiteral("%1 workers give the most on the hosts at hand: %2, %3x OneDevice (efficiency %4%).")
                         .arg(chosen->workers)
                         .arg(rate(chosen->samplesPerSecond))
                         .arg(chosen->speedup, 0, 'f', 2)
                         .arg(chosen->efficiency * 100, 0, 'f', 0);
    else if (chosen)
        r.reasons << QStringLiteral("Predicted %1.").arg(rate(chosen->samplesPerSecond));
    return r;
}

ScalingPlan planScaling(const ProbeResult& probe, const PlanRequest& request, const Calibration& calibration)
{
    ScalingPlan plan;
    plan.probe = probe;
    plan.request = request;
    PlanRequest& req = plan.request;
    if (req.coresPerHost < 1)
        req.coresPerHost = std::max(1, probe.cores);
    if (req.workerCounts.empty())
        req.workerCounts = defaultWorkerCounts(req.workersAtHand);
    std::sort(req.workerCounts.begin(), req.workerCounts.end());

    const auto add = [&](Strategy s, int n) {
        plan.predictions.push_back(predict(probe, req, s, n, calibrationFactor(calibration, s, req.hostSet)));
    };
    add(Strategy::OneDevice, 1);
    // In one process: a replica per device (logical CPU devices up to the cores).
    const int inProcess = std::max(req.devicesPerHost, req.coresPerHost);
    for (Strategy s : {Strategy::Mirrored, Strategy::CentralStorage})
        for (int n : req.workerCounts)
            if (n >= 2 && n <= inProcess)
                add(s, n);
    for (int n : req.workerCounts)
        add(Strategy::MultiWorkerMirrored, n);
    if (probe.ps)
        for (int n : req.workerCounts)
            add(Strategy::ParameterServer, n);

    // Speedup over OneDevice; efficiency over n of the strategy's own single worker.
    const double oneRate = plan.predictions.front().samplesPerSecond;
    for (Prediction& p : plan.predictions) {
        p.speedup = oneRate > 0 ? p.samplesPerSecond / oneRate : 0;
        const Prediction single = p.workers == 1 ? p : predict(probe, req, p.strategy, 1, p.calibration);
        p.efficiency = single.samplesPerSecond > 0 ? p.samplesPerSecond / (p.workers * single.samplesPerSecond) : 0;
    }

    plan.noise = noiseVerdict(probe);
    plan.recommendation = recommend(plan.predictions, probe, req);

    // Warnings, one per strategy and kind.
    std::map<Strategy, std::vector<int>> slower;
    std::map<Strategy, const Prediction*> firstShared;
    bool extrapolated = false;
    for (const Prediction& p : plan.predictions) {
        if (p.workers > 1 && p.speedup < 1)
            slower[p.strategy].push_back(p.workers);
        if (p.coresShared && !firstShared.count(p.strategy))
            firstShared[p.strategy] = &p;
        extrapolated = extrapolated || p.extrapolated;
    }
    for (const auto& [s, ns] : slower)
        plan.warnings.push_back({WarningKind::SpeedupBelowOne,
                                 QStringLiteral("%1 at %2 workers: predicted slower than OneDevice (speedup below 1).")
                                     .arg(strategyName(s), workerList(ns))});
    for (const auto& [s, p] : firstShared) {
        const ModelTerms& t = p->terms;
        const bool inProcess = s == Strategy::Mirrored || s == Strategy::CentralStorage;
        const int sharing = inProcess ? p->workers : t.processesPerHost;
        const QString who = p->workers == 1 ? QStringLiteral("with 1 worker") : QStringLiteral("from %1 workers").arg(p->workers);
        const QString what = QStringLiteral("%1 %2").arg(sharing).arg(
            inProcess ? (sharing == 1 ? QStringLiteral("replica") : QStringLiteral("replicas"))
                      : (sharing == 1 ? QStringLiteral("process") : QStringLiteral("processes")));
        const QString threads = t.threadsPerWorker == 1 ? QStringLiteral("1 thread") : QStringLiteral("%1 threads").arg(t.threadsPerWorker);
        const QString effect = t.stretch > 1.005 ? QStringLiteral("compute stretched x%1, and communication competes for the same cores")
                                                       .arg(t.stretch, 0, 'f', 2)
                                                 : QStringLiteral("communication competes with compute for the same cores");
        plan.warnings.push_back({WarningKind::SharedCores,
                                 QStringLiteral("%1 %2: %3 x %4 on a host of %5 cores, so the cores are shared: %6.")
                                     .arg(strategyName(s), who, what, threads)
                                     .arg(req.coresPerHost)
                                     .arg(effect)});
    }
    if (plan.noise.tooNoisy)
        plan.warnings.push_back({WarningKind::NoisyInputs, plan.noise.text});
    if (req.probedLocally)
        plan.warnings.push_back({WarningKind::ProbedLocally,
                                 QStringLiteral("Probed on this machine, not on the experiment's hosts: the compute and the "
                                                "links are this machine's (its loopback), not theirs.")});
    if (extrapolated)
        plan.warnings.push_back({WarningKind::Extrapolated,
                                 QStringLiteral("Beyond the %1 host(s) at hand the predictions assume more hosts like the "
                                                "probed one, linked as fast as the probe measured.")
                                     .arg(req.hostsAtHand)});
    return plan;
}

} // namespace strata::app::plan
