// strata-bench-train: training throughput of the engine on pre-loaded data, one JSON line
// on stdout. bench/bench_train.py runs it interleaved with bench/torch_train.py.
//
//   strata-bench-train --model mlp|cnn|cnn-bn|lstm|gemm --batch N --threads T [--seconds S] [--warmup-steps W]
//                      [--batches B] [--seed S] [--profile] [--device cpu:0|gpu:N]
//                      [--strategy onedevice|mirrored|central_storage --replicas R] [--trace-overhead]
//   strata-bench-train --sgemm --threads T [--size N] [--reps R] [--device gpu:N]
//
// A step is exactly what training does per batch: Dataset::gather (uint8 -> float on this
// thread) and Strategy::step (split among the replicas; forward, loss, backward, gradient
// reduction, Adam update). --batch is per replica; --threads is the GEMM threads of each
// replica. --profile (OneDevice only) runs the same sequence through the layers one by one
// with a timer around each phase instead, and puts each layer against its limit measured in the
// same run: a Dense, Conv2D or recurrent layer's GFLOP/s against sgemm's, any other's GB/s (its
// input and output once each way) against a copy's; a table on stderr, the figures in the JSON. --device gpu:N trains OneDevice on that GPU (the
// batch copied there every step, as training does); --sgemm --device gpu:N measures cuBLAS.
// --trace-overhead times the steps with the step timeline recorded (the strategy's spans, the
// trainer's step and input spans, the record's `trace` built and serialized) and without, in
// alternating blocks of --block steps (off, on, on, off, ...), and reports both and the cost.

#include "bench_models.h"
#include "strata/training/strategy_factory.h"
#include "strata/data/dataset.h"
#include "strata/nn/loss.h"
#include "strata/nn/optimizer.h"
#include "strata/nn/sequential.h"
#include "strata/core/host_info.h"
#include "strata/distribute/strategy.h"
#include "strata/report/step_trace.h"
#include "strata/schema/experiment.h"
#include "strata/tensor/blas.h"
#include "strata/tensor/denormals.h"
#include "strata/tensor/gpu.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace strata;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

struct Options {
    std::string model = "mlp";
    int64_t batch = 32;
    int threads = 1;
    double seconds = 3.0;
    int64_t warmupSteps = 20;
    int64_t batches = 100; // size of the pre-loaded dataset, in batches
    uint64_t seed = 42;
    bool profile = false;
    bool sgemm = false;
    std::string strategy = "onedevice"; // onedevice | mirrored | central_storage
    int replicas = 1;
    int64_t size = 2048; // sgemm: square size
    int reps = 5;        // sgemm: best of
    std::string device = "cpu:0";
    bool traceOverhead = false;
    int64_t block = 25; // --trace-overhead: steps per block
};

[[noreturn]] void usage(const std::string& problem)
{
    std::cerr << "strata-bench-train: " << problem << "\n"
              << "usage: strata-bench-train --model mlp|cnn|cnn-bn|lstm|gemm --batch N --threads T [--seconds S]\n"
              << "                          [--warmup-steps W] [--batches B] [--seed S] [--profile]\n"
              << "                          [--device cpu:0|gpu:N]\n"
              << "       strata-bench-train --sgemm --threads T [--size N] [--reps R] [--device gpu:N]\n";
    std::exit(2);
}

Options parseOptions(int argc, char** argv)
{
    Options o;
    const std::vector<std::string> args(argv + 1, argv + argc);
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size())
                usage(a + " needs a value");
            return args[++i];
        };
        try {
            if (a == "--model")
                o.model = value();
            else if (a == "--batch")
                o.batch = std::stoll(value());
            else if (a == "--threads")
                o.threads = std::stoi(value());
            else if (a == "--seconds")
                o.seconds = std::stod(value());
            else if (a == "--warmup-steps")
                o.warmupSteps = std::stoll(value());
            else if (a == "--batches")
                o.batches = std::stoll(value());
            else if (a == "--seed")
                o.seed = std::stoull(value());
            else if (a == "--size")
                o.size = std::stoll(value());
            else if (a == "--reps")
                o.reps = std::stoi(value());
            else if (a == "--profile")
                o.profile = true;
            else if (a == "--strategy")
                o.strategy = value();
            else if (a == "--replicas")
                o.replicas = std::stoi(value());
            else if (a == "--sgemm")
                o.sgemm = true;
            else if (a == "--device")
                o.device = value();
            else if (a == "--trace-overhead")
                o.traceOverhead = true;
            else if (a == "--block")
                o.block = std::stoll(value());
            else
                usage("unknown argument " + a);
        } catch (const std::logic_error&) { // stoll & co.: not a number / out of range
            usage("bad value for " + a);
        }
    }
    if (!bench::modelNamed(o.model))
        usage("--model must be mlp, cnn, cnn-bn, lstm or gemm");
    const bool gpu = o.device.rfind("gpu:", 0) == 0;
    if (!gpu && o.device != "cpu:0")
        usage("--device must be cpu:0 or gpu:N");
    if (gpu && (o.strategy != "onedevice" || o.profile))
        usage("--device gpu:N trains OneDevice without --profile");
    if (o.strategy != "onedevice" && o.strategy != "mirrored" && o.strategy != "central_storage")
        usage("--strategy must be onedevice, mirrored or central_storage");
    if (o.strategy == "onedevice" && o.replicas != 1)
        usage("onedevice has one replica");
    if (o.profile && o.strategy != "onedevice")
        usage("--profile times OneDevice only");
    if (o.profile && o.traceOverhead)
        usage("--profile and --trace-overhead time different things");
    if (o.block < 1)
        usage("--block must be positive");
    if (o.batch < 1 || o.threads < 1 || o.seconds <= 0 || o.warmupSteps < 0 || o.batches < 1 || o.size < 1
        || o.reps < 1 || o.replicas < 1)
        usage("batch, threads, seconds, batches, size and reps must be positive");
    return o;
}

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Best-of-reps sgemm rate (GFLOP/s) of n x n x n through the engine's GEMM at its threads:
// the compute limit training is measured against (every FLOP counted below is a GEMM FLOP).
double sgemmGflops(int64_t n, int reps)
{
    std::vector<float> a(static_cast<size_t>(n * n)), b(a.size()), c(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        a[i] = static_cast<float>(i % 17) * 0.01f;
        b[i] = static_cast<float>(i % 13) * 0.01f;
    }
    auto product = [&] { blas::gemm(blas::Trans::No, blas::Trans::No, n, n, n, 1.0f, a.data(), b.data(), 0.0f, c.data()); };
    product(); // JIT-compiles the kernels and starts the OpenMP team
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        const auto start = Clock::now();
        product();
        best = std::min(best, secondsSince(start));
    }
    return 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / best / 1e9;
}

// Best-of-3 memory bandwidth (GB/s, bytes read plus bytes written) of copying 256 MiB, split
// over `threads`: the limit of a layer that reads and writes its tensors once.
double copyGbps(int threads)
{
    const size_t n = size_t{64} << 20; // floats
    std::vector<float> from(n, 1.0f), to(n, 0.0f);
    double best = 1e30;
    for (int r = 0; r < 4; ++r) { // the first pass faults the pages in
        const auto start = Clock::now();
        std::vector<std::thread> copiers;
        for (int t = 0; t < threads; ++t)
            copiers.emplace_back([&, t] {
                const size_t begin = n * static_cast<size_t>(t) / static_cast<size_t>(threads);
                const size_t end = n * static_cast<size_t>(t + 1) / static_cast<size_t>(threads);
                std::memcpy(to.data() + begin, from.data() + begin, (end - begin) * sizeof(float));
            });
        for (std::thread& c : copiers)
            c.join();
        if (r > 0)
            best = std::min(best, secondsSince(start));
    }
    return 2.0 * static_cast<double>(n * sizeof(float)) / best / 1e9;
}

int runSgemm(const Options& o)
{
    if (o.device != "cpu:0") {
        const int index = Device::parse(o.device).index;
        const double gflops = gpu::sgemmGflops(index, o.size, o.reps);
        std::cout << Json{{"mode", "sgemm"}, {"device", o.device}, {"size", o.size}, {"gflops", gflops},
                          {"gpu", gpu::devices().at(static_cast<size_t>(index)).name},
                          {"backend", gpu::backendDescription()}}
                         .dump()
                  << std::endl;
        return 0;
    }
    blas::setThreads(o.threads);
    const double gflops = sgemmGflops(o.size, o.reps);
    Json out = {{"mode", "sgemm"},       {"threads", o.threads},           {"size", o.size},
                {"gflops", gflops},      {"blas", blas::description()}, {"peak_rss_bytes", peakResidentMemoryBytes()}};
    std::cout << out.dump() << std::endl;
    return 0;
}


// Training FLOPs per example: the GEMM work a training step needs. Forward = 2 * MACs of
// the Dense and Conv2D products; backward = the same again for the weight gradient and for
// the input gradient, except the first such layer's (nothing below it learns, and neither
// framework computes it). A recurrent layer over T steps: forward 2 T (features + units) g
// units MACs (input and recurrent products), the same again for both kernels' gradients,
// 2 T units g units for the gradient carried to the previous step, and the input gradient's
// 2 T features g units unless it is the first layer. Bias, activations, gates, pooling, loss
// and optimizer are not counted. torch_train.py counts the same way.
struct LayerFlops {
    double forward = 0, backward = 0; // per example; 0: not a GEMM layer
};
LayerFlops layerTrainFlops(nn::Layer& layer, bool first)
{
    const std::string& type = layer.spec().type;
    if (type == "LSTM" || type == "GRU") {
        const double steps = static_cast<double>(layer.inputShape()[0]);
        const double features = static_cast<double>(layer.inputShape()[1]);
        const double width = static_cast<double>(layer.parameters()[0].value.shape().back()); // g * units
        const double units = static_cast<double>(layer.parameters()[1].value.shape()[0]);
        const double forward = 2.0 * steps * width * (features + units);
        return {forward, 2.0 * steps * width * (features + 2.0 * units + (first ? 0.0 : features))};
    }
    if (type != "Dense" && type != "Conv2D")
        return {};
    // Kernels are (in, units) and (kh, kw, in, filters): every output value takes
    // kernel.numel() / filters multiply-adds.
    const Tensor& kernel = layer.parameters().front().value;
    const double perOutput = static_cast<double>(kernel.numel()) / static_cast<double>(kernel.shape().back());
    const double forward = 2.0 * static_cast<double>(layer.outputShape().numel()) * perOutput;
    return {forward, forward * (first ? 1.0 : 2.0)};
}

double trainFlopsPerSample(nn::Sequential& model)
{
    double flops = 0;
    bool first = true;
    for (size_t i = 0; i < model.layerCount(); ++i) {
        const LayerFlops f = layerTrainFlops(model.layer(i), first);
        flops += f.forward + f.backward;
        first = first && f.forward == 0;
    }
    return flops;
}

// `batches` batches of random uint8 pixels and class labels, kept as uint8 (as the loaders
// keep images) and scaled by 1/255 on gather.
data::Dataset makeDataset(const Shape& featureShape, int64_t examples, int64_t classes, uint64_t seed)
{
    Rng rng(seed, 1000);
    std::vector<uint8_t> pixels(static_cast<size_t>(examples * featureShape.numel()));
    for (auto& p : pixels)
        p = static_cast<uint8_t>(rng.below(256));
    std::vector<float> labels(static_cast<size_t>(examples));
    for (auto& l : labels)
        l = static_cast<float>(rng.below(static_cast<uint64_t>(classes)));
    return data::Dataset("random uint8 images", featureShape, std::move(pixels), 1.0f / 255.0f, Shape{1},
                         std::move(labels), classes);
}

// Per-phase timers for --profile, in seconds summed over the measured steps.
struct Profile {
    double gather = 0;
    std::vector<double> forward, backward;
    double loss = 0;
    double optimizer = 0;
};

int runTraining(const Options& o)
{
    // The trainer's thread setup (Session::open): compute threads and flushed subnormals.
    blas::setThreads(o.threads);
    flushDenormalsToZero();
    const std::map<std::string, std::string> strategyTypes = {
        {"onedevice", "OneDevice"}, {"mirrored", "Mirrored"}, {"central_storage", "CentralStorage"}};
    Json strategy{{"type", strategyTypes.at(o.strategy)}, {"logical_cpu_devices", std::max(o.replicas, 1)}};
    if (o.strategy == "onedevice")
        strategy["device"] = o.device;
    if (o.strategy != "onedevice") {
        Json devices = Json::array();
        for (int r = 0; r < o.replicas; ++r)
            devices.push_back("cpu:" + std::to_string(r));
        strategy[o.strategy == "mirrored" ? "devices" : "compute_devices"] = devices;
    }
    const Json document{
        {"name", "bench"},
        {"seed", o.seed},
        {"strategy", strategy},
        {"model", Json::parse(bench::modelNamed(o.model))},
        {"data", {{"source", {{"type", "synthetic"}}}}},
        {"training",
         {{"batch_size", o.batch},
          {"loss", {{"type", "sparse_categorical_crossentropy"}, {"from_logits", true}}},
          {"metrics", Json::array()},
          {"optimizer", {{"type", "adam"}, {"learning_rate", 1e-3}}},
          {"threads", o.threads}}}};
    const schema::Experiment experiment = schema::parseExperiment(document, ".");
    const auto strategyObject = run::createStrategy(experiment, distribute::HostDevices::probe(o.replicas));
    distribute::Strategy& strat = *strategyObject;
    nn::Sequential& model = strat.model();
    const nn::Loss& loss = strat.loss();
    nn::Optimizer& optimizer = strat.optimizer();
    std::vector<std::unique_ptr<nn::Metric>> metrics;
    const int64_t globalBatch = strat.globalBatchSize(o.batch);

    const int64_t classes = model.outputShape().back();
    const data::Dataset dataset = makeDataset(model.inputShape(), o.batches * globalBatch, classes, o.seed);
    Tensor x(model.inputShape().withBatch(globalBatch));
    Tensor y(Shape{globalBatch});
    std::vector<int64_t> indices(static_cast<size_t>(globalBatch));

    Profile prof;
    prof.forward.assign(model.layerCount(), 0.0);
    prof.backward.assign(model.layerCount(), 0.0);
    Tensor gradOutput;
    double lossSum = 0;

    int64_t step = 0;
    auto runStep = [&](bool timed) {
        // The next batch in order, wrapping around the pre-loaded examples.
        const int64_t first = (step % o.batches) * globalBatch;
        std::iota(indices.begin(), indices.end(), first);
        const nn::ForwardContext ctx{true, o.seed, step};
        ++step;
        if (!o.profile) {
            dataset.gather(indices, x.data(), y.data());
            lossSum += strat.step(x, y, ctx, metrics).lossSum;
            return;
        }
        // OneDevice's step, layer by layer (the model has no L2 and no metrics).
        auto lap = [timed, t = Clock::now()](double& into) mutable {
            const auto now = Clock::now();
            if (timed)
                into += std::chrono::duration<double>(now - t).count();
            t = now;
        };
        dataset.gather(indices, x.data(), y.data());
        lap(prof.gather);
        const Tensor* current = &x;
        for (size_t i = 0; i < model.layerCount(); ++i) {
            current = &model.layer(i).forward(*current, ctx);
            lap(prof.forward[i]);
        }
        gradOutput.ensureShape(current->shape());
        lossSum += loss.compute(*current, y, &gradOutput, 1.0f / static_cast<float>(o.batch));
        lap(prof.loss);
        // The layers Sequential::backward runs, as it runs them.
        Tensor grad = gradOutput;
        for (size_t i = model.layerCount(); i-- > model.firstTrainable() && !grad.empty();) {
            grad = model.layer(i).backward(grad, i > model.firstTrainable());
            lap(prof.backward[i]);
        }
        optimizer.apply(model.parameters());
        lap(prof.optimizer);
    };

    for (int64_t i = 0; i < o.warmupSteps; ++i)
        runStep(false);
    if (o.traceOverhead) {
        // What recording adds to a trainer's step: the strategy's spans, the step and input
        // spans around it, and the record's `trace` written as text (the rest of the record is
        // written either way; appending the text to its line is a copy of ~300 bytes).
        run::StepTracer tracer;
        size_t traceBytes = 0, spans = 0;
        double takeSeconds = 0; // writing the trace, timed alone
        const auto tracedStep = [&] {
            const auto stepStart = Clock::now();
            {
                SpanScope stepSpan(tracer.recorder(), TraceLane::Step, "step");
                const int64_t first = (step % o.batches) * globalBatch;
                std::iota(indices.begin(), indices.end(), first);
                const nn::ForwardContext ctx{true, o.seed, step};
                ++step;
                SpanScope inputSpan(tracer.recorder(), TraceLane::Step, "input");
                dataset.gather(indices, x.data(), y.data());
                inputSpan.end();
                lossSum += strat.step(x, y, ctx, metrics).lossSum;
            }
            const auto taking = Clock::now();
            const std::string& text = tracer.take(stepStart, 0);
            takeSeconds += secondsSince(taking);
            traceBytes += text.size();
            spans += static_cast<size_t>(std::count(text.begin(), text.end(), '['));
        };
        // Blocks in the order off, on, on, off, ...: drift falls on both alike. Timed by the wall
        // clock and by this thread's CPU time (what a loaded machine's waits do not inflate).
        const auto cpuNow = [] {
            timespec ts{};
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
            return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
        };
        double cpu[2] = {0, 0};
        std::vector<double> cpuRatios;
        double lastCpuOff = 0;
        double seconds[2] = {0, 0};
        int64_t counted[2] = {0, 0};
        std::vector<double> ratios; // each pair of neighbouring blocks: on / off per step
        double lastOff = 0;
        const auto start = Clock::now();
        for (int64_t b = 0; secondsSince(start) < o.seconds || b % 4 != 0; ++b) {
            const bool on = b % 4 == 1 || b % 4 == 2;
            strat.setSpanRecorder(on ? tracer.recorder() : nullptr);
            const auto blockStart = Clock::now();
            const double cpuStart = cpuNow();
            for (int64_t i = 0; i < o.block; ++i) {
                if (on)
                    tracedStep();
                else
                    runStep(false);
            }
            const double cpuPerStep = (cpuNow() - cpuStart) / static_cast<double>(o.block);
            const double perStep = secondsSince(blockStart) / static_cast<double>(o.block);
            cpu[on] += cpuPerStep * static_cast<double>(o.block);
            if (!on)
                lastCpuOff = cpuPerStep;
            else if (lastCpuOff > 0)
                cpuRatios.push_back(cpuPerStep / lastCpuOff);
            seconds[on] += perStep * static_cast<double>(o.block);
            counted[on] += o.block;
            if (!on)
                lastOff = perStep;
            else if (lastOff > 0)
                ratios.push_back(perStep / lastOff);
        }
        strat.setSpanRecorder(nullptr);
        std::sort(ratios.begin(), ratios.end());
        std::sort(cpuRatios.begin(), cpuRatios.end());
        const double cpuOff = cpu[0] / static_cast<double>(counted[0]) * 1e6;
        const double cpuOn = cpu[1] / static_cast<double>(counted[1]) * 1e6;
        // The cost of one span (a scope's two clock readings and the append), timed alone: with
        // the trace's writing, what recording adds to a step whatever the machine's noise.
        SpanRecorder scratch;
        std::vector<SpanRecorder::Span> drained;
        const int64_t scopes = 200000;
        const auto scoping = Clock::now();
        for (int64_t i = 0; i < scopes; ++i) {
            { const SpanScope scope(&scratch, TraceLane::Step, "x"); }
            if (i % 256 == 255)
                scratch.take(TraceLane::Step, drained);
        }
        const double spanUs = secondsSince(scoping) / static_cast<double>(scopes) * 1e6;
        // Five spans added and their trace written, timed alone.
        run::StepTracer alone;
        const int64_t takes = 50000;
        const auto writing = Clock::now();
        for (int64_t i = 0; i < takes; ++i) {
            const auto t = Clock::now();
            for (const char* name : {"step", "input", "forward", "backward", "optimizer"})
                alone.recorder()->add(TraceLane::Step, name, t, t);
            traceBytes += alone.take(t, 0).size() > 0 ? 0 : 1;
        }
        const double takeAloneUs = secondsSince(writing) / static_cast<double>(takes) * 1e6;
        const double perStepSpans = static_cast<double>(spans) / static_cast<double>(counted[1]) - 1; // the list's own '['
        const double recordingUs = perStepSpans * spanUs + takeSeconds / static_cast<double>(counted[1]) * 1e6;
        const double off = seconds[0] / static_cast<double>(counted[0]) * 1e6;
        const double onUs = seconds[1] / static_cast<double>(counted[1]) * 1e6;
        std::cout << Json{{"mode", "trace_overhead"},
                          {"model", o.model},
                          {"batch", o.batch},
                          {"threads", o.threads},
                          {"strategy", strat.name()},
                          {"steps_each", counted[0]},
                          {"step_us_off", off},
                          {"step_us_on", onUs},
                          {"overhead_percent", (onUs / off - 1) * 100},
                          {"median_block_ratio_percent", (ratios[ratios.size() / 2] - 1) * 100},
                          {"cpu_us_off", cpuOff},
                          {"cpu_us_on", cpuOn},
                          {"cpu_overhead_percent", (cpuOn / cpuOff - 1) * 100},
                          {"cpu_median_block_ratio_percent", (cpuRatios[cpuRatios.size() / 2] - 1) * 100},
                          {"trace_bytes_per_step", static_cast<double>(traceBytes) / static_cast<double>(counted[1])},
                          {"spans_per_step", perStepSpans},
                          {"span_us", spanUs},
                          {"take_us_alone", takeAloneUs},
                          {"take_us_in_steps", takeSeconds / static_cast<double>(counted[1]) * 1e6},
                          {"recording_us_per_step", recordingUs},
                          {"recording_percent_of_step_off", recordingUs / off * 100}}
                         .dump()
                  << std::endl;
        return 0;
    }
    const int64_t warmup = step;
    // Time check every step: steady_clock costs ~20 ns against >= 10 us steps.
    const auto start = Clock::now();
    double elapsed = 0;
    while ((elapsed = secondsSince(start)) < o.seconds)
        runStep(true);
    const int64_t steps = step - warmup;

    const double flopsPerSample = trainFlopsPerSample(model);
    const double samplesPerSec = static_cast<double>(steps * globalBatch) / elapsed;
    Json out = {{"framework", "strata"},
                {"model", o.model},
                {"device", o.device},
                {"batch", o.batch},
                {"threads", o.threads},
                {"strategy", strat.name()},
                {"replicas", strat.replicaCount()},
                {"samples_per_sec", samplesPerSec},
                {"steps", steps},
                {"seconds", elapsed},
                {"train_flops_per_sample", flopsPerSample},
                {"gflops", samplesPerSec * flopsPerSample / 1e9},
                {"peak_rss_bytes", peakResidentMemoryBytes()},
                {"dataset_bytes", dataset.storedBytes()},
                {"mean_loss", lossSum / static_cast<double>(step * globalBatch)}, // ~ln(10) on random labels
                {"blas", blas::description()}};
    if (o.profile) {
        // Microseconds per step, per phase and per layer.
        // Each layer against its own limit, measured here at these threads: a GEMM layer's
        // FLOP/s against sgemm, any other's bytes (its input and output, read or written once
        // each way) against a copy's bandwidth.
        const double sgemm = sgemmGflops(2048, 3), copy = copyGbps(o.threads);
        const double perStep = 1e6 / static_cast<double>(steps);
        const double examples = static_cast<double>(globalBatch);
        Json layers = Json::array();
        std::fprintf(stderr, "%-18s %11s %11s  %s (sgemm %.1f GFLOP/s, copy %.1f GB/s at %d thread(s))\n", "layer",
                     "forward us", "backward us", "forward / backward against the limit", sgemm, copy, o.threads);
        bool first = true;
        for (size_t i = 0; i < model.layerCount(); ++i) {
            nn::Layer& layer = model.layer(i);
            const LayerFlops f = layerTrainFlops(layer, first);
            first = first && f.forward == 0;
            const double fs = prof.forward[i] / static_cast<double>(steps), bs = prof.backward[i] / static_cast<double>(steps);
            Json row{{"layer", layer.name()}, {"forward_us", fs * 1e6}, {"backward_us", bs * 1e6}};
            char achieved[160];
            if (f.forward > 0) {
                const double fg = f.forward * examples / fs / 1e9, bg = bs > 0 ? f.backward * examples / bs / 1e9 : 0;
                row["forward_gflops"] = fg;
                row["backward_gflops"] = bg;
                std::snprintf(achieved, sizeof achieved, "%.1f / %.1f GFLOP/s: %.0f%% / %.0f%% of sgemm", fg, bg,
                              100 * fg / sgemm, 100 * bg / sgemm);
            } else if (layer.spec().type == "Flatten" || layer.spec().type == "Reshape") {
                std::snprintf(achieved, sizeof achieved, "a view: no data moved");
            } else {
                // Above 100%: tensors small enough to stay in the caches. A phase under 5 us
                // moved no data of its own (fused into a neighbour's pass): "-".
                const double bytes = 4.0 * examples *
                                     static_cast<double>(layer.inputShape().numel() + layer.outputShape().numel());
                const auto rate = [&](double seconds, const char* key) {
                    if (seconds < 5e-6)
                        return std::string("-");
                    const double gbps = bytes / seconds / 1e9;
                    row[key] = gbps;
                    char text[48];
                    std::snprintf(text, sizeof text, "%.1f GB/s (%.0f%%)", gbps, 100 * gbps / copy);
                    return std::string(text);
                };
                const std::string forward = rate(fs, "forward_gbps"), backward = rate(bs, "backward_gbps");
                std::snprintf(achieved, sizeof achieved, "%s / %s of a copy", forward.c_str(), backward.c_str());
            }
            const char* path = layer.cpuPath();
            if (path)
                row["path"] = path;
            std::fprintf(stderr, "%-18s %11.1f %11.1f  %s%s%s\n", layer.name().c_str(), fs * 1e6, bs * 1e6, achieved,
                         path ? " - " : "", path ? path : "");
            layers.push_back(row);
        }
        out["profile_us_per_step"] = {{"gather", prof.gather * perStep},
                                      {"loss", prof.loss * perStep},
                                      {"optimizer", prof.optimizer * perStep},
                                      {"layers", layers}};
        out["profile_limits"] = {{"sgemm_gflops", sgemm}, {"copy_gbps", copy}};
        // Subnormal floats make arithmetic on them slow: Adam's moments of parameters whose
        // gradient stays zero (dead ReLU units) decay into that range after ~1000 steps.
        int64_t subnormal = 0, total = 0;
        auto count = [&](const Tensor& t) {
            for (float v : t.values())
                subnormal += std::fpclassify(v) == FP_SUBNORMAL;
            total += t.numel();
        };
        for (const auto& [name, slot] : optimizer.stateTensors())
            count(*slot);
        out["optimizer_slot_values"] = total;
        out["optimizer_slot_subnormals"] = subnormal;
    }
    std::cout << out.dump() << std::endl;
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    const Options options = parseOptions(argc, argv);
    try {
        return options.sgemm ? runSgemm(options) : runTraining(options);
    } catch (const std::exception& e) {
        std::cerr << "strata-bench-train: " << e.what() << "\n";
        return 1;
    }
}
