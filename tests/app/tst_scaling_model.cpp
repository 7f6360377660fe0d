// The scaling planner's model (app/plan/scaling_model.h) on hand-computed cases: the ring's
// formula, MultiWorkerMirrored with its bucket past the backward pass and the cores' bound,
// 4 workers on 2 cores (stretched, halving-doubling, the warning), ParameterServer's busiest
// link against the ps and the cores, the recommendation's rules, the noise verdict, and the
// calibration learnt from runs with its JSON form. Every expected figure is worked out in the
// comments from the probe below.

#include "app/plan/plan_calibration.h"
#include "app/plan/probe_result.h"
#include "app/plan/scaling_model.h"

#include "two_core_probe.h"

#include <QtTest>

using namespace strata::app::plan;
using planfixture::steady;

ProbeResult probe() { return planfixture::twoCoreProbe(); }

namespace {


PlanRequest oneHost()
{
    PlanRequest r;
    r.experiment = QStringLiteral("test");
    r.hostsAtHand = 1;
    r.workersAtHand = 2;
    r.coresPerHost = 2;
    r.batchPerReplica = 32;
    r.bucketBytes = 32 << 20;
    r.hostSet = QStringLiteral("127.0.0.1");
    r.workerCounts = {1, 2, 4};
    return r;
}

const Prediction& find(const ScalingPlan& plan, Strategy s, int workers)
{
    for (const Prediction& p : plan.predictions)
        if (p.strategy == s && p.workers == workers)
            return p;
    qFatal("no prediction for %s at %d", qPrintable(strategyName(s)), workers);
}

bool hasWarning(const ScalingPlan& plan, WarningKind kind, const QString& containing = {})
{
    for (const Warning& w : plan.warnings)
        if (w.kind == kind && w.text.contains(containing))
            return true;
    return false;
}

} // namespace

class TestScalingModel : public QObject {
    Q_OBJECT

private slots:
    void sweepCorrection()
    {
        // The sweep measured 1.5 ms at 1 MB where the fit says 1.2: every bucket near that size
        // is taken 1.25 times the formula (the fit's shape, the measurement's level).
        ProbeResult p = probe();
        p.collective.points[1].seconds.median = 1.5e-3;
        const Prediction two = predict(p, oneHost(), Strategy::MultiWorkerMirrored, 2);
        QVERIFY(qAbs(two.terms.communication - 1.5e-3) < 1e-12);
        const Prediction four = predict(p, oneHost(), Strategy::MultiWorkerMirrored, 4);
        QVERIFY(qAbs(four.terms.communication - 1.25 * 1.9e-3) < 1e-12);
    }

    void ringFormula()
    {
        // 2(n-1) a + 2(n-1)/n S/B with n 4, a 0.1 ms, S 3 MB, B 1 GB/s: 0.6 ms + 4.5 ms.
        QCOMPARE(ringAllReduceSeconds(4, 3e6, 1e-4, 1e9), 5.1e-3);
        QCOMPARE(ringAllReduceSeconds(1, 3e6, 1e-4, 1e9), 0.0);
    }

    void multiWorkerTwoWorkers()
    {
        const Prediction p = predict(probe(), oneHost(), Strategy::MultiWorkerMirrored, 2);
        // 2 processes of 1 thread (2 cores / 2 workers) fill the 2 cores: compute at the loaded
        // 12 ms, stretch 1.2.
        QCOMPARE(p.terms.threadsPerWorker, 1);
        QCOMPARE(p.terms.compute, 0.012);
        QCOMPARE(p.terms.stretch, 1.2);
        QVERIFY(!p.coresShared);
        // One bucket of 1,000,000 bytes, ready at 5 x 1.2 = 6 ms into the backward pass; the ring
        // of 2: 2 a + S/B = 0.2 + 1.0 ms; done at 7.2 ms, the backward pass (5.5 x 1.2) at 6.6.
        QCOMPARE(p.terms.communication, 1.2e-3);
        QVERIFY(qAbs(p.terms.exposed - 0.6e-3) < 1e-12);
        QVERIFY(qAbs(p.terms.overlapped - 0.6e-3) < 1e-12);
        // Without the cores: 12 + 0.6 = 12.6 ms. The cores: 2 x (12 + 0.1 input + 1.2 x 0.5
        // collective CPU) / 2 = 12.7 ms, which sets the step.
        QVERIFY(qAbs(p.terms.coresBound - 0.0127) < 1e-12);
        QVERIFY(qAbs(p.stepSeconds - 0.0127) < 1e-12);
        QCOMPARE(p.terms.limit, QStringLiteral("cores"));
        QVERIFY(qAbs(p.samplesPerSecond - 64 / 0.0127) < 1e-6);
        QVERIFY(p.terms.formula.contains(QStringLiteral("2(n-1)/n S/B")));
    }

    void multiWorkerRehearsal()
    {
        // The probe's rehearsal of 2 workers (1 thread each) took 15 ms a step where the parts
        // add up to 12.7 (multiWorkerTwoWorkers): 2.3 ms beyond them at a stretch of 1.2, so
        // 2.3 / 1.2 ms a step of a replica alone. At 2 workers the plan is what was measured.
        ProbeResult p = probe();
        p.collective.rehearsal = steady(0.015);
        p.collective.rehearsal.samples = 500;
        p.collective.rehearsalThreads = 1;
        const Prediction two = predict(p, oneHost(), Strategy::MultiWorkerMirrored, 2);
        QVERIFY(qAbs(two.terms.overhead - 2.3e-3) < 1e-12);
        QVERIFY(qAbs(two.stepSeconds - 0.015) < 1e-12);
        QVERIFY(two.terms.formula.contains(QStringLiteral("+ 2.300 ms beyond these parts (the probe's rehearsal of 2 workers: 15.00 ms a step)")));
        // At 4 workers on the 2 cores the compute is stretched 2.4 times and so is the overhead:
        // the cores' 26.1 ms (multiWorkerSharedCores) + 2.3 / 1.2 x 2.4 = 30.7 ms.
        const Prediction four = predict(p, oneHost(), Strategy::MultiWorkerMirrored, 4);
        QVERIFY(qAbs(four.terms.overhead - 4.6e-3) < 1e-12);
        QVERIFY(qAbs(four.stepSeconds - 0.0307) < 1e-12);
        // One worker reduces nothing: no overhead.
        const Prediction one = predict(p, oneHost(), Strategy::MultiWorkerMirrored, 1);
        QCOMPARE(one.terms.overhead, 0.0);
        QCOMPARE(one.stepSeconds, predict(probe(), oneHost(), Strategy::MultiWorkerMirrored, 1).stepSeconds);
        // A rehearsal faster than the parts lowers the step, never below the compute (12 ms).
        p.collective.rehearsal = steady(0.010);
        p.collective.rehearsal.samples = 500;
        const Prediction faster = predict(p, oneHost(), Strategy::MultiWorkerMirrored, 2);
        QVERIFY(faster.terms.overhead < 0);
        QCOMPARE(faster.stepSeconds, 0.012);
        // Without a rehearsal (an older probe) nothing is added.
        QCOMPARE(predict(probe(), oneHost(), Strategy::MultiWorkerMirrored, 2).terms.overhead, 0.0);
    }

    void multiWorkerSharedCores()
    {
        const ScalingPlan plan = planScaling(probe(), oneHost());
        const Prediction& p = find(plan, Strategy::MultiWorkerMirrored, 4);
        // 4 processes x 1 thread on 2 cores: the loaded 12 ms stretched by 4/2.
        QVERIFY(p.coresShared);
        QCOMPARE(p.terms.processesPerHost, 4);
        QCOMPARE(p.terms.compute, 0.024);
        // Halving-doubling (4 ranks, 1 MB): 2 log2(4) a + 2(3)/4 S/B = 0.4 + 1.5 ms; ready at
        // 5 x 2.4 = 12 ms, done at 13.9, the backward pass at 13.2: 0.7 ms exposed.
        QVERIFY(qAbs(p.terms.communication - 1.9e-3) < 1e-12);
        QVERIFY(qAbs(p.terms.exposed - 0.7e-3) < 1e-12);
        // The cores: 4 x (12 + 0.1 + 1.9 x 0.5) / 2 = 26.1 ms, above 24.7.
        QVERIFY(qAbs(p.stepSeconds - 0.0261) < 1e-12);
        QVERIFY(hasWarning(plan, WarningKind::SharedCores, QStringLiteral("MultiWorkerMirrored from 4 workers")));
        // With the crowded sweep (4 ranks on the 2 cores: a = 0.5 ms, B = 500 MB/s), the shared
        // cores' collectives are its: 2 log2(4) x 0.5 ms + 2(3)/4 x 1 MB / 500 MB/s = 2 + 3 ms;
        // the 2 workers, who do not share, keep the 2-rank sweep's 1.2 ms.
        ProbeResult crowded = probe();
        CollectiveProbe k = crowded.collective;
        k.ranks = 4;
        k.latencySeconds = 5e-4;
        k.bytesPerSecond = 5e8;
        k.points = {{1000000, steady(5e-3), 0.004}};
        crowded.crowdedCollective = k;
        QVERIFY(qAbs(predict(crowded, oneHost(), Strategy::MultiWorkerMirrored, 4).terms.communication - 5e-3) < 1e-12);
        QVERIFY(qAbs(predict(crowded, oneHost(), Strategy::MultiWorkerMirrored, 2).terms.communication - 1.2e-3) < 1e-12);
        QVERIFY(!hasWarning(plan, WarningKind::SharedCores, QStringLiteral("MultiWorkerMirrored from 2 workers")));
    }

    void parameterServerBusiestLink()
    {
        PlanRequest r = oneHost();
        r.threadsPerWorker = 1;
        // Pull + push over the one ps: 0.2 ms + 2 x 1 MB / 200 MB/s = 10.2 ms, of which the ps's
        // CPU 3 ms and the worker's 1 ms: 6.2 ms on no CPU. The cores: 12 ms of compute under
        // load + 0.1 input + 1 ms of client + the ps's 3 ms = 16.1 ms a step over 2 cores, a
        // queue of 8.05 ms; alone a worker spends 10 + 1 ms on them: 2.95 ms beyond the queue.
        const Prediction one = predict(probe(), r, Strategy::ParameterServer, 1);
        // One worker meets no one: 6.2 + 3 + 8.05 + 2.95 = 20.2 ms, the round trip + compute.
        QVERIFY(qAbs(one.stepSeconds - 0.0202) < 1e-12);
        QVERIFY(qAbs(one.terms.communication - 0.0102) < 1e-12);
        QCOMPARE(one.terms.stretch, 1.0);
        // Two: each waits behind the other at the ps and the cores (mean value analysis). With
        // one worker 1/20.2 ms steps/s leave 3/20.2 of a worker queued at the ps and 8.05/20.2
        // at the cores; the second meets them: 3 x (1 + 3/20.2) + 8.05 x (1 + 8.05/20.2) + 6.2 +
        // 2.95 = 23.85 ms, 2 / that steps/s.
        const Prediction p = predict(probe(), r, Strategy::ParameterServer, 2);
        const double cycle = 0.0062 + 0.003 * (1 + 3 / 20.2) + 0.00805 * (1 + 8.05 / 20.2) + 0.00295;
        QVERIFY(qAbs(p.stepSeconds - cycle) < 1e-12);
        QVERIFY(qAbs(p.samplesPerSecond - 2 / cycle * 32) < 1e-6);
        QVERIFY(p.terms.stretch > 1.1);
        // Neither centre near full (ps 25%, cores 67%): the round trip, longer than the compute, sets it.
        QCOMPARE(p.terms.limit, QStringLiteral("communication"));
        QCOMPARE(p.globalBatch, int64_t{32});
        // Below both bounds: 1 / the ps's 3 ms, 2 cores / 16.1 ms.
        QVERIFY(p.samplesPerSecond / 32 < std::min(1 / 0.003, 2 / 0.0161));
        // With 2 ps the busiest holds 0.8 of the bytes: 0.2 + 2 x 0.8 MB / 200 MB/s = 8.2 ms.
        r.psTasks = 2;
        r.busiestPsShare = 0.8;
        QVERIFY(qAbs(predict(probe(), r, Strategy::ParameterServer, 2).terms.communication - 0.0082) < 1e-12);
        // 64 workers on 1 host: the cores saturate (2 / 16.1 ms = 124.2 steps/s), approached
        // from below.
        r.psTasks = 1;
        r.busiestPsShare = 1;
        const Prediction crowded = predict(probe(), r, Strategy::ParameterServer, 64);
        QCOMPARE(crowded.terms.limit, QStringLiteral("cores"));
        QVERIFY(crowded.samplesPerSecond / 32 <= 2 / 0.0161 && crowded.samplesPerSecond / 32 > 0.99 * 2 / 0.0161);
        // Spread over 32 hosts the ps's 3 ms per step limits the job to 333 steps/s.
        r.scaleOut = true; // 2 workers a host: 32 hosts
        const Prediction wide = predict(probe(), r, Strategy::ParameterServer, 64);
        QCOMPARE(wide.hosts, 32);
        QVERIFY(wide.extrapolated);
        QCOMPARE(wide.terms.limit, QStringLiteral("ps"));
        QVERIFY(wide.samplesPerSecond <= 32 / 0.003 && wide.samplesPerSecond > 0.99 * 32 / 0.003);
    }

    void oneDeviceAndSpeedups()
    {
        const ScalingPlan plan = planScaling(probe(), oneHost());
        const Prediction& one = find(plan, Strategy::OneDevice, 1);
        // All the host's cores (2 threads): 6 ms, the input hidden; but the cores also read the
        // input: (12 ms of work under load + 0.1) / 2 cores = 6.05 ms.
        QVERIFY(qAbs(one.stepSeconds - 0.00605) < 1e-12);
        QCOMPARE(one.terms.limit, QStringLiteral("cores"));
        QCOMPARE(one.speedup, 1.0);
        // MWM at 2: 64 / 12.7 ms against 32 / 6.05 ms: below 1, said so.
        const Prediction& two = find(plan, Strategy::MultiWorkerMirrored, 2);
        QVERIFY(qAbs(two.speedup - (64 / 0.0127) / (32 / 0.00605)) < 1e-9);
        QVERIFY(two.speedup < 1);
        QVERIFY(hasWarning(plan, WarningKind::SpeedupBelowOne, QStringLiteral("MultiWorkerMirrored at 2, 4 workers")));
        // Efficiency: over 2 x MWM's own 1 worker (as OneDevice: nothing to reduce).
        const Prediction& single = find(plan, Strategy::MultiWorkerMirrored, 1);
        QVERIFY(qAbs(single.stepSeconds - 0.00605) < 1e-12);
        QVERIFY(qAbs(two.efficiency - two.samplesPerSecond / (2 * single.samplesPerSecond)) < 1e-12);
    }

    void recommendationRules()
    {
        // One host, one device: OneDevice.
        ScalingPlan plan = planScaling(probe(), oneHost());
        QCOMPARE(plan.recommendation.strategy, Strategy::OneDevice);
        QVERIFY(plan.recommendation.reasons.first().contains(QStringLiteral("One host with one device")));
        // One host, 4 GPUs: Mirrored by the rule.
        PlanRequest devices = oneHost();
        devices.devicesPerHost = 4;
        plan = planScaling(probe(), devices);
        QVERIFY(plan.recommendation.reasons.first().contains(QStringLiteral("Mirrored")));
        // Several hosts, communication cheap beside compute: MultiWorkerMirrored with the most
        // workers the hosts at hand hold.
        ProbeResult fast = probe();
        fast.collective.latencySeconds = 1e-6;
        fast.collective.bytesPerSecond = 1e12;
        fast.collective.points = {{1000000, steady(2e-6 + 1e-6), 0}};
        PlanRequest hosts = oneHost();
        hosts.hostsAtHand = 4;
        hosts.workersAtHand = 4;
        hosts.workerCounts = {1, 2, 4};
        plan = planScaling(fast, hosts);
        QCOMPARE(plan.recommendation.strategy, Strategy::MultiWorkerMirrored);
        QCOMPARE(plan.recommendation.workers, 4);
        QVERIFY(plan.recommendation.reasons.first().contains(QStringLiteral("Several hosts (4)")));
        // The same hosts with a slow network: MWM below OneDevice, so OneDevice, saying why.
        ProbeResult slow = probe();
        slow.collective.bytesPerSecond = 1e6;
        slow.collective.points = {{1000000, steady(2e-4 + 1.0), 0}};
        slow.ps->bytesPerSecond = 1e6;
        plan = planScaling(slow, hosts);
        QCOMPARE(plan.recommendation.strategy, Strategy::OneDevice);
        QVERIFY(plan.recommendation.reasons.join(' ').contains(QStringLiteral("predicted slower than OneDevice")));
        // Huge variables: ParameterServer.
        ProbeResult huge = fast;
        huge.gradientBytes = int64_t{3} << 30;
        plan = planScaling(huge, hosts);
        QCOMPARE(plan.recommendation.strategy, Strategy::ParameterServer);
    }

    void noiseVerdict_data()
    {
        QTest::addColumn<double>("computeCv");
        QTest::addColumn<double>("allReduceCv");
        QTest::addColumn<bool>("tooNoisy");
        QTest::addColumn<QString>("worst");
        QTest::addColumn<double>("otherBusyCores");
        QTest::newRow("steady") << 0.05 << 0.04 << false << "compute" << 0.2;
        QTest::newRow("compute noisy") << 0.30 << 0.04 << true << "compute" << 0.0;
        // The all-reduce (1.2 ms) is 1.2 / (1.2 + 12) of a step of 2 workers: varying by 40% it
        // moves the predictions by 3.6%, less than the steady compute's 5%; by 200%, by 18%.
        QTest::newRow("all-reduce noisy, a small part") << 0.05 << 0.40 << false << "compute" << 0.0;
        QTest::newRow("all-reduce noisy") << 0.05 << 2.0 << true << "all-reduce of 977 KiB" << 0.0;
        // Steady timings, but other processes took 1.5 of the 2 cores: the host's, not the job's.
        QTest::newRow("busy host") << 0.05 << 0.04 << true << "compute" << 1.5;
    }
    void noiseVerdict()
    {
        QFETCH(double, computeCv);
        QFETCH(double, allReduceCv);
        QFETCH(bool, tooNoisy);
        QFETCH(QString, worst);
        QFETCH(double, otherBusyCores);
        ProbeResult p = probe();
        p.otherBusyCores = otherBusyCores;
        p.compute.points[1].step.robustCv = computeCv;
        p.collective.points[1].seconds.robustCv = allReduceCv;
        const ScalingPlan plan = planScaling(p, oneHost());
        QCOMPARE(plan.noise.tooNoisy, tooNoisy);
        QVERIFY2(plan.noise.worst.startsWith(worst), qPrintable(plan.noise.worst));
        QCOMPARE(hasWarning(plan, WarningKind::NoisyInputs), tooNoisy);
        QCOMPARE(plan.noise.text.contains(QStringLiteral("other processes kept 1.5 of the host's 2 cores")),
                 otherBusyCores > 0.5);
        if (worst.startsWith(QStringLiteral("all-reduce")) && tooNoisy)
            QVERIFY2(plan.noise.text.contains(QStringLiteral("varied by 200% (robust coefficient of variation, 9% of a step: "
                                                             "it moves the predictions by about 18%")),
                     qPrintable(plan.noise.text));
    }

    void calibration()
    {
        const Prediction p = predict(probe(), oneHost(), Strategy::MultiWorkerMirrored, 2);
        Calibration c = calibrated({}, p, QStringLiteral("127.0.0.1"), 0.9 * p.samplesPerSecond);
        QCOMPARE(c.entries.size(), size_t{1});
        QVERIFY(qAbs(c.entries[0].factor - 0.9) < 1e-12);
        // A second run, 0.81 of the uncalibrated prediction: the geometric mean, 0.8538.
        const Prediction again = predict(probe(), oneHost(), Strategy::MultiWorkerMirrored, 2, 0.9);
        QVERIFY(qAbs(again.samplesPerSecond - 0.9 * p.samplesPerSecond) < 1e-9);
        c = calibrated(c, again, QStringLiteral("127.0.0.1"), 0.81 * p.samplesPerSecond);
        QCOMPARE(c.entries[0].runs, 2);
        QVERIFY(qAbs(c.entries[0].factor - std::sqrt(0.9 * 0.81)) < 1e-12);
        // Applied by the plan to that strategy on those hosts only.
        const ScalingPlan plan = planScaling(probe(), oneHost(), c);
        QVERIFY(qAbs(find(plan, Strategy::MultiWorkerMirrored, 2).calibration - std::sqrt(0.9 * 0.81)) < 1e-12);
        QCOMPARE(find(plan, Strategy::ParameterServer, 2).calibration, 1.0);
        QCOMPARE(calibrationFactor(c, Strategy::MultiWorkerMirrored, QStringLiteral("a,b")), 1.0);
        // JSON both ways; entries that cannot be read are left out.
        const Calibration back = calibrationFromJson(nlohmann::json::parse(calibrationToJson(c).dump()));
        QCOMPARE(back.entries.size(), size_t{1});
        QCOMPARE(back.entries[0].factor, c.entries[0].factor);
        QCOMPARE(back.entries[0].runs, 2);
        QCOMPARE(back.entries[0].hostSet, QStringLiteral("127.0.0.1"));
        const auto bad = nlohmann::json::parse(
            R"({"v":1,"entries":[{"strategy":"TPU","factor":1.1},{"strategy":"Mirrored","factor":-1},{"strategy":"Mirrored","hosts":"h","factor":1.2,"runs":3}]})");
        const Calibration some = calibrationFromJson(bad);
        QCOMPARE(some.entries.size(), size_t{1});
        QCOMPARE(some.entries[0].strategy, Strategy::Mirrored);
        QCOMPARE(predictionError(110, 100), 0.1);
        QCOMPARE(hostSetKey({QStringLiteral("b"), QStringLiteral("a"), QStringLiteral("b")}), QStringLiteral("a,b"));
    }

    void requestFromExperiment()
    {
        const auto experiment = nlohmann::json::parse(R"({
            "name": "ps-job", "model": {"input_shape": [4], "layers": []},
            "strategy": {"type": "ParameterServer"},
            "training": {"batch_size": 64, "threads": 1},
            "cluster": {"nodes": [{"name": "a", "host": "10.0.0.1"}, {"name": "b", "host": "10.0.0.2"}],
                        "tasks": [{"type": "chief", "node": "a"}, {"type": "worker", "node": "a", "count": 2},
                                  {"type": "worker", "node": "b", "count": 2}, {"type": "ps", "node": "b", "count": 2}]}})");
        const PlanRequest r = requestFor(experiment, probe());
        QCOMPARE(r.current, Strategy::ParameterServer);
        QCOMPARE(r.workersAtHand, 4); // the coordinator trains nothing
        QCOMPARE(r.hostsAtHand, 2);
        QCOMPARE(r.psTasks, 2);
        QCOMPARE(r.busiestPsShare, 0.8);
        QCOMPARE(r.batchPerReplica, int64_t{64});
        QCOMPARE(r.threadsPerWorker, 1);
        QCOMPARE(r.hostSet, QStringLiteral("10.0.0.1,10.0.0.2"));
        QVERIFY(r.probedLocally);
        QVERIFY(std::find(r.workerCounts.begin(), r.workerCounts.end(), 64) != r.workerCounts.end());
    }
};

QTEST_GUILESS_MAIN(TestScalingModel)
#include "tst_scaling_model.moc"
