// strata-bench-allreduce: MultiWorkerMirrored's gradient all-reduce between 2 worker
// PROCESSES on 127.0.0.1, against Gloo's own algorithms on a plain Gloo context, interleaved.
//
//   strata-bench-allreduce [--sizes B,B,...] [--bucket-sizes B,B,...] [--sweep-sizes B,B,...]
//                          [--rounds N] [--block-mib M] [--json FILE] [--quick]
//
// Sizes are bytes, with an optional K or M suffix (KiB, MiB); `cnn` is the gradient of the
// CNN of bench/README.md (670,248 bytes, in its own variables). The process forks two ranks
// before it starts any thread; each joins a strata::distribute::ProcessGroup (the rendezvous on
// rank 0, Gloo over TCP) and a plain gloo::rendezvous::Context (a FileStore in a temporary
// folder, a TCP device on 127.0.0.1). Contenders, each all-reducing the same buffer:
//
//   ours         the strategy's path: the buffer split into buckets of the default bucket
//                size (kDefaultBucketBytes) as MultiWorkerMirroredStrategy splits its
//                gradient (whole variables from the last one down, a bucket closed once it
//                holds the bucket size), every bucket queued with allReduceQueued, last
//                first, then waitQueued();
//   gloo buckets the same buckets, each one gloo::AllreduceRingChunked run on the calling
//                thread: what the buckets cost by themselves, without our queue thread;
//   ours 1 call  ProcessGroup::allReduce over the whole buffer (the same algorithm, no
//                buckets, no queue thread);
//   gloo         gloo::AllreduceRingChunked<float> over the whole buffer (what ProcessGroup
//                runs), built once, run on the calling thread: the reference;
//   gloo ring    gloo::AllreduceRing<float>, Gloo's older ring, for information.
//
// Per round, per buffer size, the contenders take turns in a shuffled order, until each has
// all-reduced --block-mib of data (a turn: one call on buffers of 16 MiB and more, up to 64
// on smaller ones, after an untimed one; see timeInterleaved). Reported: algorithm bandwidth (buffer bytes / seconds per all-reduce; with 2 ranks a
// ring moves the buffer's size in and out of each rank, so bus bandwidth is the same figure),
// the median over rounds, and the per-round ratio ours / gloo, min/median/max; the target is
// a median of at least 0.90. Then the bucket sweep: `ours` with each of --bucket-sizes at
// each of --sweep-sizes, as a ratio to gloo on the same buffer in the same round. Both ranks
// run the same sequence and time it; the figures are the mean of their clocks. Exits 0 when
// the target is missed (a report).

#include "bench_models.h"
#include "rank_processes.h"
#include "strata/distribute/process_group.h"
#include "strata/nn/sequential.h"
#include "strata/schema/experiment.h"

#include <gloo/allreduce_ring.h>
#include <gloo/allreduce_ring_chunked.h>
#include <gloo/barrier_all_to_one.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace {

using namespace strata;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

constexpr double kTargetRatio = 0.90;
constexpr double kMiB = 1024.0 * 1024.0;
// Above this many cores' worth of CPU time used by something other than the two ranks
// (averaged over a round), the round is named as disturbed (bench_strategies.py's rule).
constexpr double kDisturbedCores = 0.2;


struct Options {
    std::vector<std::string> sizes{"cnn", "4M", "16M", "64M"};
    std::vector<std::string> sweepSizes{"cnn", "16M", "64M"};
    std::vector<int64_t> bucketSizes{64 << 10, 256 << 10, 1 << 20, 4 << 20, 8 << 20, 16 << 20, 32 << 20};
    int rounds = 5;
    double blockMiB = 256; // bytes all-reduced per contender per round (sets the iterations)
    std::string json;
    bool quick = false;
};

[[noreturn]] void usage(const std::string& message)
{
    std::cerr << "strata-bench-allreduce: " << message << "\n"
              << "usage: strata-bench-allreduce [--sizes B,..] [--bucket-sizes B,..] [--sweep-sizes B,..]\n"
                 "                              [--rounds N] [--block-mib M] [--json FILE] [--quick]\n"
                 "       sizes in bytes with an optional K or M suffix; `cnn`: the CNN's gradient\n";
    std::exit(2);
}

std::vector<std::string> splitList(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            out.push_back(item);
    return out;
}

int64_t parseBytes(const std::string& s)
{
    size_t used = 0;
    int64_t v = 0;
    try {
        v = std::stoll(s, &used);
    } catch (const std::exception&) {
        usage("not a size: " + s);
    }
    const std::string suffix = s.substr(used);
    if (suffix == "K" || suffix == "k")
        v <<= 10;
    else if (suffix == "M" || suffix == "m")
        v <<= 20;
    else if (!suffix.empty())
        usage("not a size: " + s);
    if (v < 4)
        usage("size too small: " + s);
    return v;
}

Options parseOptions(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                usage(a + " needs a value");
            return argv[++i];
        };
        if (a == "--sizes")
            o.sizes = splitList(value());
        else if (a == "--sweep-sizes")
            o.sweepSizes = splitList(value());
        else if (a == "--bucket-sizes") {
            o.bucketSizes.clear();
            for (const auto& s : splitList(value()))
                o.bucketSizes.push_back(parseBytes(s));
        } else if (a == "--rounds")
            o.rounds = std::max(1, std::atoi(value().c_str()));
        else if (a == "--block-mib")
            o.blockMiB = std::max(1.0, std::atof(value().c_str()));
        else if (a == "--json")
            o.json = value();
        else if (a == "--quick")
            o.quick = true;
        else
            usage("unknown argument " + a);
    }
    if (o.quick) {
        o.rounds = 2;
        o.blockMiB = 32;
    }
    for (const auto* list : {&o.sizes, &o.sweepSizes})
        for (const auto& size : *list)
            if (size != "cnn")
                parseBytes(size); // here, not in the ranks
    if (o.bucketSizes.empty() || (o.sizes.empty() && o.sweepSizes.empty()))
        usage("nothing to measure");
    return o;
}

// A gradient buffer: its variables' sizes in floats, in parameter order.
struct Layout {
    std::string name;
    std::vector<size_t> variables;
    size_t floats() const
    {
        size_t n = 0;
        for (size_t v : variables)
            n += v;
        return n;
    }
    size_t bytes() const { return floats() * sizeof(float); }
};

Layout cnnLayout()
{
    const Json document{{"name", "bench"},
                        {"model", Json::parse(bench::kCnn)},
                        {"data", {{"source", {{"type", "synthetic"}}}}},
                        {"training", {{"batch_size", 1}}}};
    const schema::Experiment experiment = schema::parseExperiment(document, ".");
    nn::Sequential model(experiment.model, 0);
    Layout l{"cnn", {}};
    for (const nn::Parameter* p : model.parameters())
        l.variables.push_back(static_cast<size_t>(p->value.numel()));
    return l;
}

// A buffer of `bytes` with variables much finer than any bucket: buckets of exactly the
// bucket size (the lowest one the remainder).
Layout flatLayout(const std::string& name, int64_t bytes)
{
    const size_t floats = static_cast<size_t>(bytes) / sizeof(float);
    constexpr size_t kPiece = 1024; // 4 KiB "variables"
    Layout l{name, std::vector<size_t>(floats / kPiece, kPiece)};
    if (floats % kPiece)
        l.variables.push_back(floats % kPiece);
    return l;
}

Layout layoutFor(const std::string& name)
{
    return name == "cnn" ? cnnLayout() : flatLayout(name, parseBytes(name));
}

struct Bucket {
    size_t begin = 0, end = 0;
};

// MultiWorkerMirroredStrategy's rule (engine/distribute/multi_worker_mirrored_strategy.cpp):
// whole variables from the last one down, a bucket closed once it holds bucketBytes.
std::vector<Bucket> bucketsOf(const Layout& layout, int64_t bucketBytes)
{
    std::vector<size_t> offsets;
    size_t offset = 0;
    for (size_t v : layout.variables) {
        offsets.push_back(offset);
        offset += v;
    }
    const auto bucketElements = static_cast<size_t>(bucketBytes) / sizeof(float);
    std::vector<Bucket> out;
    size_t end = offset;
    for (size_t i = offsets.size(); i-- > 0;) {
        const size_t begin = offsets[i];
        if (end - begin >= bucketElements || i == 0) {
            out.push_back({begin, end});
            end = begin;
        }
    }
    return out;
}

std::string human(double bytes)
{
    char buf[32];
    if (bytes >= kMiB)
        std::snprintf(buf, sizeof buf, "%.4g MiB", bytes / kMiB);
    else
        std::snprintf(buf, sizeof buf, "%.4g KiB", bytes / 1024.0);
    return buf;
}

// ---- the two ranks --------------------------------------------------------------------

struct Rank {
    int rank = 0;
    int port = 0;
    std::string storeDir;
    std::unique_ptr<distribute::ProcessGroup> group;
    std::shared_ptr<gloo::Context> plain;
    // Gloo algorithms over the whole buffer, built once per buffer (as ProcessGroup does).
    std::map<std::tuple<const float*, size_t, char>, std::unique_ptr<gloo::Algorithm>> algorithms;

    void join()
    {
        group = bench::joinGroup(rank, 2, port, std::chrono::seconds(60));

        gloo::transport::tcp::attr attr;
        attr.hostname = "127.0.0.1";
        auto device = gloo::transport::tcp::CreateDevice(attr);
        auto context = std::make_shared<gloo::rendezvous::Context>(rank, 2);
        context->setTimeout(std::chrono::seconds(60));
        gloo::rendezvous::FileStore store(storeDir);
        context->connectFullMesh(store, device);
        plain = context;
    }

    gloo::Algorithm& gloo(std::span<float> data, char kind)
    {
        auto& slot = algorithms[{data.data(), data.size(), kind}];
        if (!slot) {
            const int count = static_cast<int>(data.size());
            if (kind == 'c')
                slot = std::make_unique<gloo::AllreduceRingChunked<float>>(plain, std::vector<float*>{data.data()}, count);
            else
                slot = std::make_unique<gloo::AllreduceRing<float>>(plain, std::vector<float*>{data.data()}, count);
        }
        return *slot;
    }

    // Both ranks leave together: neither one's clock starts while the other is still busy.
    void barrier()
    {
        group->barrier();
        gloo::BarrierAllToOne b(plain);
        b.run();
    }
};

struct Contender {
    std::string key;
    std::string label;
    int64_t bucketBytes = 0; // "ours" only
};

// One all-reduce of `buffer` by `c`.
void allReduceOnce(Rank& r, const Contender& c, std::vector<float>& buffer, const std::vector<Bucket>& buckets)
{
    if (c.key == "gloo")
        r.gloo(buffer, 'c').run();
    else if (c.key == "gloo_ring")
        r.gloo(buffer, 'r').run();
    else if (c.key == "gloo_buckets")
        for (const Bucket& b : buckets)
            r.gloo(std::span<float>(buffer).subspan(b.begin, b.end - b.begin), 'c').run();
    else if (c.key == "ours_whole")
        r.group->allReduce(std::span<float>(buffer));
    else {
        // As the strategy: every bucket queued in backward order, then waited for.
        for (const Bucket& b : buckets)
            r.group->allReduceQueued(std::span<float>(buffer).subspan(b.begin, b.end - b.begin));
        r.group->waitQueued();
    }
}

// A buffer and the contenders that all-reduce it, with what they measured.
struct Case {
    Layout layout;
    std::vector<float> buffer;
    std::vector<Contender> contenders;
    std::vector<std::vector<Bucket>> buckets; // per contender
    int iterations = 1;
    int reps = 1; // timed calls per turn
    bool sweep = false;
    std::vector<std::vector<double>> seconds; // per contender, per round
    // Both ranks' clocks summed in here: one buffer for the case's whole life, since
    // ProcessGroup builds a Gloo algorithm per buffer address, and a temporary that one rank
    // reallocates at a new address and the other at the old one would pair different
    // algorithms (Gloo slots) across the ranks.
    std::vector<double> totals;
};

// Seconds per all-reduce of each contender of `c`, interleaved: each of the `iterations`
// gives every contender a turn, in a shuffled order (the same on both ranks: the same seed),
// so that a burst of other load or a slow stretch of the VM falls on all of them alike. A
// turn is `c.reps` timed calls, after one untimed call when there are several: the first call
// after a turn on the other Gloo context (or on the other thread) finds other threads asleep
// and pays for waking them, which the strategy, alone on its group, never does; on buffers
// of 16 MiB and more it is one timed call (the wake-up is lost in it). Each rank times its own
// calls; the result is the mean of both ranks' clocks (a rank that leaves a ring a little
// earlier starts the next call early and waits inside it).
std::vector<double> timeInterleaved(Rank& r, Case& c, int iterations, int round)
{
    const size_t n = c.contenders.size();
    std::vector<double>& total = c.totals;
    std::fill(total.begin(), total.end(), 0.0);
    std::mt19937 shuffle(static_cast<uint32_t>(round + 1));
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    r.barrier();
    for (int i = 0; i < iterations; ++i) {
        std::shuffle(order.begin(), order.end(), shuffle);
        for (const size_t k : order) {
            if (c.reps > 1)
                allReduceOnce(r, c.contenders[k], c.buffer, c.buckets[k]);
            const auto start = Clock::now();
            for (int rep = 0; rep < c.reps; ++rep)
                allReduceOnce(r, c.contenders[k], c.buffer, c.buckets[k]);
            total[k] += std::chrono::duration<double>(Clock::now() - start).count();
        }
    }
    r.group->allReduce(std::span<double>(total));
    for (double& t : total)
        t /= 2.0 * iterations * c.reps;
    return total;
}

// Every contender sums correctly (rank r holds r + 1 + i%7 at i: the sum is 3 + 2 * (i%7)).
void check(Rank& r, const Contender& c, std::vector<float>& buffer, const std::vector<Bucket>& buckets)
{
    for (size_t i = 0; i < buffer.size(); ++i)
        buffer[i] = static_cast<float>(r.rank + 1 + static_cast<int>(i % 7));
    allReduceOnce(r, c, buffer, buckets);
    for (size_t i = 0; i < buffer.size(); ++i)
        if (buffer[i] != static_cast<float>(3 + 2 * static_cast<int>(i % 7)))
            throw std::runtime_error(c.label + ": element " + std::to_string(i) + " is " +
                                     std::to_string(buffer[i]) + " after the all-reduce");
    // Zeros while timing: sums stay zero (no overflow to inf, no subnormals).
    std::fill(buffer.begin(), buffer.end(), 0.0f);
}

// CPU seconds all cores spent not idle since boot, steal included (/proc/stat), as
// bench_strategies.py counts them; negative when unreadable.
double hostBusySeconds()
{
    std::ifstream in("/proc/stat");
    std::string cpu;
    in >> cpu;
    std::vector<double> f;
    for (double v; f.size() < 8 && in >> v;)
        f.push_back(v);
    if (f.size() < 8)
        return -1;
    // user nice system idle iowait irq softirq steal
    return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double ownCpuSeconds()
{
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

std::string bucketKey(int64_t bytes) { return "ours_" + std::to_string(bytes); }

Json runRank(Rank& r, const Options& o)
{
    r.join();
    const std::vector<Contender> main = {
        {"ours", "ours: buckets queued", schema::kDefaultBucketBytes},
        {"gloo_buckets", "Gloo, the same buckets", schema::kDefaultBucketBytes},
        {"ours_whole", "ours: allReduce, 1 call", 0},
        {"gloo", "Gloo AllreduceRingChunked", 0},
        {"gloo_ring", "Gloo AllreduceRing", 0},
    };
    std::vector<Case> cases;
    const auto addCase = [&](const std::string& name, bool sweep) {
        Case c;
        c.layout = layoutFor(name);
        c.sweep = sweep;
        c.buffer.assign(c.layout.floats(), 0.0f);
        if (sweep) {
            c.contenders.push_back({"gloo", "Gloo AllreduceRingChunked", 0});
            for (int64_t b : o.bucketSizes)
                c.contenders.push_back({bucketKey(b), "ours, buckets of " + human(static_cast<double>(b)), b});
        } else {
            c.contenders = main;
        }
        for (const auto& k : c.contenders)
            c.buckets.push_back(bucketsOf(c.layout, k.bucketBytes > 0 ? k.bucketBytes : schema::kDefaultBucketBytes));
        c.seconds.resize(c.contenders.size());
        c.totals.resize(c.contenders.size());
        const double bytes = static_cast<double>(c.layout.bytes());
        c.reps = std::clamp(static_cast<int>(std::lround(16 * kMiB / bytes)), 1, 64);
        c.iterations = std::clamp(static_cast<int>(std::lround(o.blockMiB * kMiB / (bytes * c.reps))), 3, 5000);
        cases.push_back(std::move(c));
    };
    for (const auto& s : o.sizes)
        addCase(s, false);
    for (const auto& s : o.sweepSizes)
        addCase(s, true);

    // Correctness, and every algorithm built (and its connections warmed) before timing.
    for (auto& c : cases) {
        for (size_t k = 0; k < c.contenders.size(); ++k)
            check(r, c.contenders[k], c.buffer, c.buckets[k]);
        timeInterleaved(r, c, 1, 0);
    }

    // What else ran on the machine during each round: all cores' busy time minus both ranks'.
    std::vector<double> otherCores;
    std::vector<double> cpu(1); // one buffer for every round (see Case::totals)
    for (int round = 0; round < o.rounds; ++round) {
        const double busyBefore = hostBusySeconds(), cpuBefore = ownCpuSeconds();
        const auto wallBefore = Clock::now();
        for (auto& c : cases) {
            const auto seconds = timeInterleaved(r, c, c.iterations, round);
            for (size_t k = 0; k < seconds.size(); ++k)
                c.seconds[k].push_back(seconds[k]);
        }
        cpu[0] = ownCpuSeconds() - cpuBefore;
        r.group->allReduce(std::span<double>(cpu));
        const double wall = std::chrono::duration<double>(Clock::now() - wallBefore).count();
        const double busy = hostBusySeconds() - busyBefore;
        otherCores.push_back(busyBefore < 0 ? 0.0 : std::max(0.0, busy - cpu[0]) / wall);
        if (r.rank == 0)
            std::cerr << "  round " << round + 1 << "/" << o.rounds << ": " << wall << " s, other load "
                      << otherCores.back() << " cores" << std::endl;
    }

    Json out = Json::array();
    for (auto& c : cases) {
        Json contenders = Json::array();
        for (size_t k = 0; k < c.contenders.size(); ++k)
            contenders.push_back({{"key", c.contenders[k].key},
                                  {"label", c.contenders[k].label},
                                  {"bucket_bytes", c.contenders[k].bucketBytes},
                                  {"calls", c.contenders[k].bucketBytes > 0 ? c.buckets[k].size() : size_t{1}},
                                  {"seconds", c.seconds[k]}});
        out.push_back({{"size", c.layout.name},
                       {"bytes", c.layout.bytes()},
                       {"sweep", c.sweep},
                       {"iterations", c.iterations},
                       {"timed_calls_per_turn", c.reps},
                       {"contenders", contenders}});
    }
    return {{"cases", out}, {"other_cores", otherCores}};
}

// ---- the parent: two ranks forked, their report summarized -----------------------------

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Json minMedianMax(const std::vector<double>& v)
{
    return {{"min", *std::min_element(v.begin(), v.end())},
            {"median", median(v)},
            {"max", *std::max_element(v.begin(), v.end())}};
}

std::string sizeLabel(const Json& c)
{
    const std::string bytes = human(c["bytes"].get<double>());
    return c["size"] == "cnn" ? "cnn " + bytes : bytes;
}

std::string triple(const Json& t)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f/%.2f/%.2f", t["min"].get<double>(), t["median"].get<double>(),
                  t["max"].get<double>());
    return buf;
}

// Adds bandwidths and ratios to rank 0's raw seconds; prints the tables.
Json summarize(const Json& measured, const Options& o)
{
    Json cases = measured["cases"];
    const auto otherCores = measured["other_cores"].get<std::vector<double>>();
    for (auto& c : cases) {
        const double bytes = c["bytes"].get<double>();
        std::vector<double> reference;
        for (const auto& k : c["contenders"])
            if (k["key"] == "gloo")
                reference = k["seconds"].get<std::vector<double>>();
        for (auto& k : c["contenders"]) {
            const auto seconds = k["seconds"].get<std::vector<double>>();
            std::vector<double> bandwidth, ratio;
            for (size_t r = 0; r < seconds.size(); ++r) {
                bandwidth.push_back(bytes / seconds[r]);
                ratio.push_back(reference[r] / seconds[r]); // bandwidth ours / gloo's
            }
            k["bandwidth_bytes_per_sec_median"] = median(bandwidth);
            k["seconds_median"] = median(seconds);
            k["ratio_to_gloo"] = minMedianMax(ratio);
        }
    }

    std::printf("\nGradient all-reduce, 2 worker processes on 127.0.0.1 (Gloo TCP), %d rounds interleaved\n"
                "(algorithm bandwidth = buffer bytes / seconds per all-reduce, median over rounds; ratio = "
                "bandwidth / Gloo AllreduceRingChunked's in the same round, min/median/max)\n",
                o.rounds);
    // The plain cases' table, then the bucket sweep's.
    const auto printTable = [&](bool sweep) {
        std::printf("%-16s %-27s %6s %8s %10s %16s\n", "buffer", "contender", "calls", "ms", "GB/s", "ratio to Gloo");
        std::printf("%s\n", std::string(88, '-').c_str());
        for (const auto& c : cases) {
            if (c["sweep"].get<bool>() != sweep)
                continue;
            for (const auto& k : c["contenders"])
                std::printf("%-16s %-27s %6d %8.3f %10.3f %16s\n", sizeLabel(c).c_str(),
                            k["label"].get<std::string>().c_str(), k["calls"].get<int>(),
                            1e3 * k["seconds_median"].get<double>(),
                            k["bandwidth_bytes_per_sec_median"].get<double>() / 1e9,
                            k["key"] == "gloo" ? "reference" : triple(k["ratio_to_gloo"]).c_str());
        }
    };
    printTable(false);
    std::printf("\nBucket sweep: the strategy's path with each bucket size (ratio to Gloo's one call on the whole "
                "buffer in the same round)\n");
    printTable(true);

    std::vector<int> disturbed;
    for (size_t r = 0; r < otherCores.size(); ++r)
        if (otherCores[r] > kDisturbedCores)
            disturbed.push_back(static_cast<int>(r) + 1);
    if (!disturbed.empty()) {
        std::string list;
        for (int r : disturbed)
            list += (list.empty() ? "" : ", ") + std::to_string(r) + " (" +
                    std::to_string(otherCores[static_cast<size_t>(r - 1)]).substr(0, 4) + " cores)";
        std::printf("\nDisturbed rounds (other processes or steal above %.1f core beside the ranks; kept in the "
                    "medians): %s\n", kDisturbedCores, list.c_str());
    }

    std::printf("\nTarget: ours (buckets of %s, queued) at least %.2fx Gloo's bandwidth, on the median\n",
                human(static_cast<double>(schema::kDefaultBucketBytes)).c_str(), kTargetRatio);
    bool all = true;
    Json verdicts = Json::array();
    for (const auto& c : cases) {
        if (c["sweep"].get<bool>())
            continue;
        for (const auto& k : c["contenders"])
            if (k["key"] == "ours") {
                const double m = k["ratio_to_gloo"]["median"].get<double>();
                const bool pass = m >= kTargetRatio;
                all = all && pass;
                std::printf("%-16s %.2fx  %s\n", sizeLabel(c).c_str(), m, pass ? "PASS" : "FAIL");
                verdicts.push_back({{"size", c["size"]}, {"ratio_median", m}, {"pass", pass}});
            }
    }
    return {{"target_ratio", kTargetRatio}, {"target_pass", all},       {"verdicts", verdicts},
            {"other_cores", otherCores},   {"disturbed_rounds", disturbed}, {"cases", cases}};
}

int rankMain(int rank, int port, const std::string& dir, const Options& o)
{
    try {
        Rank r;
        r.rank = rank;
        r.port = port;
        r.storeDir = dir + "/store";
        Json measured = runRank(r, o);
        r.group->barrier();
        if (rank == 0) {
            std::ofstream(dir + "/rank0.json") << measured.dump();
        }
        r.group->leave();
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "strata-bench-allreduce: rank " << rank << ": " << e.what() << std::endl;
        return 1;
    }
}

} // namespace

int main(int argc, char** argv)
{
    const Options o = parseOptions(argc, argv);
    char pattern[] = "/tmp/strata-bench-allreduce-XXXXXX";
    if (!::mkdtemp(pattern)) {
        std::perror("mkdtemp");
        return 1;
    }
    const std::string dir = pattern;
    std::filesystem::create_directory(dir + "/store");
    const int port = bench::freePort();
    const auto started = std::chrono::system_clock::now();

    // Two processes, forked before this process starts any thread.
    const bool failed = !bench::forkRanks(2, [&](int rank) { return rankMain(rank, port, dir, o); });
    Json measured;
    if (!failed) {
        std::ifstream in(dir + "/rank0.json");
        if (in)
            measured = Json::parse(in, nullptr, false);
    }
    std::filesystem::remove_all(dir);
    if (failed || !measured.is_object()) {
        std::cerr << "strata-bench-allreduce: a rank failed\n";
        return 1;
    }

    Json report = summarize(measured, o);
    const auto seconds = std::chrono::duration<double>(std::chrono::system_clock::now() - started).count();
    Json full{{"benchmark", "gradient all-reduce between 2 processes: ProcessGroup (the strategy's buckets) "
                            "against Gloo's own algorithms, interleaved"},
              {"duration_seconds", seconds},
              {"cores", std::thread::hardware_concurrency()},
              {"default_bucket_bytes", schema::kDefaultBucketBytes},
              {"settings", {{"rounds", o.rounds}, {"block_mib", o.blockMiB}, {"quick", o.quick}}}};
    full.update(report);
    if (!o.json.empty()) {
        std::filesystem::path p(o.json);
        if (p.has_parent_path())
            std::filesystem::create_directories(p.parent_path());
        std::ofstream(o.json) << full.dump(1) << "\n";
        std::printf("results: %s\n", o.json.c_str());
    }
    return 0;
}
