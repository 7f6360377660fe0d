#include "strata/training/scaling_probe.h"

#include "distribute/replica.h"
#include "ps/ps_client.h"
#include "strata/data/loaders.h"
#include "strata/data/pipeline.h"
#include "strata/nn/loss.h"
#include "strata/tensor/blas.h"
#include "strata/tensor/denormals.h"
#include "strata/training/data_fit.h"
#include "strata/training/session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <numeric>

namespace strata::run {

namespace {

using Clock = std::chrono::steady_clock;

double secondsBetween(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// This process's CPU time, every thread of it (Gloo's and ZeroMQ's included).
double processCpuSeconds()
{
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

} // namespace

nlohmann::ordered_json spreadJson(const std::vector<double>& samples)
{
    double mean = 0, var = 0;
    for (double s : samples)
        mean += s;
    mean /= std::max<size_t>(samples.size(), 1);
    for (double s : samples)
        var += (s - mean) * (s - mean);
    var /= std::max<size_t>(samples.size() > 1 ? samples.size() - 1 : 1, 1);
    const double mid = median(samples);
    std::vector<double> deviations;
    for (double s : samples)
        deviations.push_back(std::abs(s - mid));
    // The mean is what throughput sees (the rate is 1 / the mean step); the median and the
    // robust spread say how steady the samples were: 1.4826 MAD estimates the standard
    // deviation of normal samples, unmoved by a few outliers (a step preempted by another process).
    return {{"median", mid},
            {"mean", mean},
            {"cv", mean > 0 ? std::sqrt(var) / mean : 0.0},
            {"robust_cv", mid > 0 ? 1.4826 * median(deviations) / mid : 0.0},
            {"samples", samples.size()}};
}

ComputeTiming timeCompute(const schema::Experiment& experiment, int threads, int warmup, int steps, double minSeconds)
{
    blas::setThreads(threads);
    flushDenormalsToZero();
    distribute::Replica replica(0, Device::cpu(0), experiment, false, threads);
    nn::Sequential& model = replica.model();
    const auto loss = nn::createLoss(experiment.training.loss, model.fuseOutputActivation(experiment.training.loss));
    const auto optimizer = distribute::createScaledOptimizer(experiment, 1);

    data::DatasetSplits splits = data::loadDatasets(experiment);
    adaptFeatures(*splits.train, model.inputShape(), "training");
    TargetEncoder targets(*splits.train, model.outputShape(), experiment.training.loss);
    data::PipelineOptions po;
    po.batchSize = experiment.training.batchSize;
    po.shuffle = experiment.data.shuffle;
    po.seed = experiment.seed;
    po.prefetch = 0; // the pipeline's own time, on this thread
    data::Pipeline pipeline(splits.train, indexRange(0, splits.train->size()), po);

    const auto& params = model.parameters();
    ComputeTiming out;
    std::vector<size_t> firstElement; // where each variable starts, for the backward hook's index
    for (const nn::Parameter* p : params)
        out.variableBytes.push_back(p->value.numel() * static_cast<int64_t>(sizeof(float)));
    std::vector<std::vector<double>> ready(params.size());
    Tensor gradOutput;
    Clock::time_point timedFrom;
    for (int s = 0;; ++s) {
        const bool timed = s >= warmup;
        if (s == warmup)
            timedFrom = Clock::now();
        if (timed && s - warmup >= steps && (secondsBetween(timedFrom, Clock::now()) >= minSeconds || s - warmup >= 5000))
            break;
        const auto t0 = Clock::now();
        const data::Batch batch = pipeline.next();
        const Tensor& y = targets.encode(batch.y);
        const auto t1 = Clock::now();
        const nn::ForwardContext ctx{true, experiment.seed, s};
        // The forward pass and the loss alone, then the whole gradient computation: the
        // backward pass is the difference (the forward pass runs twice; only the second's
        // gradients are used).
        const Tensor& pred = model.forward(batch.x, ctx);
        gradOutput.ensureShape(pred.shape(), pred.device());
        loss->compute(pred, y, &gradOutput, 1.0f / static_cast<float>(std::max<int64_t>(batch.size(), 1)));
        const auto t2 = Clock::now();
        std::vector<double> finalAt(params.size(), -1);
        replica.computeGradients(batch.x, y, *loss, 1.0f / static_cast<float>(std::max<int64_t>(batch.size(), 1)), ctx,
                                 [&](size_t firstFinal) {
                                     const double at = secondsBetween(t2, Clock::now());
                                     for (size_t i = firstFinal; i < params.size(); ++i)
                                         if (finalAt[i] < 0)
                                             finalAt[i] = at;
                                 });
        const auto t3 = Clock::now();
        model.addRegularizationGradients();
        optimizer->apply(params);
        const auto t4 = Clock::now();
        if (!timed)
            continue;
        const double forward = secondsBetween(t1, t2);
        const double gradients = secondsBetween(t2, t3);
        out.input.push_back(secondsBetween(t0, t1));
        out.forward.push_back(forward);
        out.backward.push_back(std::max(0.0, gradients - forward));
        out.optimizer.push_back(secondsBetween(t3, t4));
        out.step.push_back(gradients + secondsBetween(t3, t4));
        for (size_t i = 0; i < params.size(); ++i)
            ready[i].push_back(std::max(0.0, (finalAt[i] < 0 ? gradients : finalAt[i]) - forward));
    }
    for (const auto& r : ready)
        out.gradientReady.push_back(median(r));
    return out;
}

RingFit fitRing(int ranks, const std::vector<int64_t>& bytes, const std::vector<double>& seconds)
{
    // t = c a + d S x with x = 1/B; c the latency steps of the algorithm the group runs at
    // that size; weights 1/t^2 (relative error). Normal equations of 2x2.
    const double d = 2.0 * (ranks - 1) / ranks;
    const auto steps = [ranks](int64_t b) {
        return distribute::allReduceAlgorithmFor(ranks, static_cast<size_t>(b)) == distribute::AllReduceAlgorithm::Ring
                   ? 2.0 * (ranks - 1)
                   : 2.0 * std::ceil(std::log2(static_cast<double>(ranks)));
    };
    double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
        const double w = 1.0 / (seconds[i] * seconds[i]);
        const double u = steps(bytes[i]), v = d * static_cast<double>(bytes[i]);
        s11 += w * u * u;
        s12 += w * u * v;
        s22 += w * v * v;
        r1 += w * u * seconds[i];
        r2 += w * v * seconds[i];
    }
    const double det = s11 * s22 - s12 * s12;
    RingFit fit;
    double a = det != 0 ? (r1 * s22 - r2 * s12) / det : 0;
    double x = det != 0 ? (s11 * r2 - s12 * r1) / det : 0;
    // A negative term is noise around zero: refit the other alone.
    if (a < 0) {
        a = 0;
        x = r2 / s22;
    } else if (x <= 0) {
        x = 0;
        a = r1 / s11;
    }
    fit.latency = a;
    fit.bytesPerSecond = x > 0 ? 1.0 / x : 0;
    double sq = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
        const double predicted = steps(bytes[i]) * a + d * static_cast<double>(bytes[i]) * x;
        sq += std::pow((predicted - seconds[i]) / seconds[i], 2);
    }
    fit.relativeError = bytes.empty() ? 0 : std::sqrt(sq / static_cast<double>(bytes.size()));
    return fit;
}

nlohmann::ordered_json timeAllReduce(distribute::ProcessGroup& group, const std::vector<int64_t>& sizes, int reps,
                                     double workBetween)
{
    std::vector<nlohmann::ordered_json> secondsOf(sizes.size()), cpuOf(sizes.size());
    // Largest first: Gloo sizes a connection's send buffer to the largest message so far and
    // never shrinks it, so every size is timed with the buffer a job reducing buckets up to
    // the largest has (ascending, a 16 KiB all-reduce met a 16 KiB buffer and took 70 ms).
    for (size_t i = sizes.size(); i-- > 0;) {
        const int64_t bytes = sizes[i];
        std::vector<float> buffer(static_cast<size_t>(std::max<int64_t>(bytes / 4, 1)), 1.0f);
        // About 32 MiB through each rank per round, 4 to 128 calls (the same on every rank):
        // rounds of tens of milliseconds, which one late wake-up on a shared core does not move
        // by half.
        int calls = static_cast<int>(std::clamp<int64_t>((int64_t{32} << 20) / std::max<int64_t>(bytes, 1), 4, 128));
        if (workBetween > 0) // rounds of about a tenth of a second
            calls = std::clamp(static_cast<int>(0.1 / workBetween), 4, calls);
        // As MultiWorkerMirrored reduces its buckets: queued, in place, on the group's thread.
        const auto reduce = [&] {
            group.allReduceQueued(buffer);
            group.waitQueued();
        };
        reduce(); // the algorithm built, the peers awake
        std::vector<double> rounds;
        double cpuSpent = 0;
        for (int r = 0; r < reps; ++r) {
            group.barrier();
            double seconds = 0, cpu = 0;
            for (int c = 0; c < calls; ++c) {
                if (workBetween > 0) { // a step's compute on this core first, as a job's ranks meet
                    const auto until = Clock::now() + std::chrono::duration<double>(workBetween);
                    while (Clock::now() < until) {
                    }
                }
                const double cpu0 = processCpuSeconds();
                const auto start = Clock::now();
                reduce();
                seconds += secondsBetween(start, Clock::now());
                cpu += processCpuSeconds() - cpu0;
            }
            rounds.push_back(seconds / calls);
            cpuSpent += cpu / calls;
        }
        secondsOf[i] = rounds;
        cpuOf[i] = cpuSpent / reps;
    }
    return {{"bytes", sizes}, {"seconds", secondsOf}, {"cpu_seconds", cpuOf}};
}

nlohmann::ordered_json timePsRoundTrips(const schema::Experiment& experiment, const std::string& token, int warmup,
                                        int reps, double minSeconds, const std::function<double()>& serverCpu)
{
    nn::Sequential model(experiment.model, experiment.seed);
    const ps::JobLayout layout = ps::JobLayout::of(experiment, model);
    zmq::context_t context;
    ps::PsClient client(context, ps::deriveCurveKeys(token), layout);
    const auto optimizer = distribute::createScaledOptimizer(experiment, 1);
    const auto& params = model.parameters();
    client.waitForServers(std::chrono::seconds(30));
    client.init(params, *optimizer);
    int64_t bytes = 0;
    for (const nn::Parameter* p : params)
        bytes += p->value.numel() * static_cast<int64_t>(sizeof(float));
    const auto roundTrip = [&] {
        client.pull(params);
        client.push(params);
        client.ping(); // the ps hears from its coordinator
        client.receivePending();
    };
    for (int r = 0; r < warmup; ++r)
        roundTrip();
    std::vector<double> seconds;
    const double cpu0 = processCpuSeconds(), server0 = serverCpu();
    const auto from = Clock::now();
    while (static_cast<int>(seconds.size()) < reps ||
           (secondsBetween(from, Clock::now()) < minSeconds && seconds.size() < 20000)) {
        const auto start = Clock::now();
        roundTrip();
        seconds.push_back(secondsBetween(start, Clock::now()));
    }
    const double n = static_cast<double>(seconds.size());
    const double cpu = (processCpuSeconds() - cpu0) / n, server = (serverCpu() - server0) / n;
    client.shutdown("completed");
    return {{"variable_bytes", bytes}, {"seconds", seconds}, {"cpu_seconds", cpu}, {"server_cpu_s", server}};
}

} // namespace strata::run
