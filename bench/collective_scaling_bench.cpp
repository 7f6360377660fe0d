// strata-bench-collectives: MultiWorkerMirrored's collectives against the number of tasks, on
// 127.0.0.1 (bench/README.md, "Collectives against the number of tasks").
//
//   strata-bench-collectives [--ranks N,N,...] [--sizes B,B,...] [--rounds R] [--json FILE]
//
// For each N of --ranks (2,4,8,16,32,64 by default), N rank processes are forked and each
// joins a ProcessGroup as a worker does: the rendezvous on rank 0, then Gloo's full mesh over
// TCP. Reported per N:
//   join    from the fork to the group being joined, the slowest rank's (the rendezvous and
//           the mesh: N(N-1)/2 connections);
//   ring / halving-doubling
//           seconds per all-reduce of each buffer size (bytes, K or M suffix) with each of the
//           two algorithms, on the same group, taking turns (the order alternates every
//           round); per round the mean over the ranks' clocks, then the median over rounds;
//           and which one the group chooses for that size (allReduceAlgorithmFor).
// Every rank of every N shares the machine's cores: at 64 ranks on 2 cores a step of either
// algorithm waits for its peer to be scheduled, which is what halving-doubling's fewer steps
// (2 log2 N against the ring's 2(N-1)) save.

#include "cpu_name.h"
#include "rank_processes.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace strata;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using distribute::AllReduceAlgorithm;

struct Options {
    std::vector<int> ranks{2, 4, 8, 16, 32, 64};
    std::vector<int64_t> sizes{4 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20};
    int rounds = 3;
    std::string json;
};

std::vector<std::string> splitList(const std::string& s)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        const size_t end = std::min(s.find(',', start), s.size());
        if (end > start)
            out.push_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

int64_t parseBytes(const std::string& s)
{
    const char unit = s.empty() ? 0 : s.back();
    const int64_t n = std::stoll(s);
    return unit == 'K' ? n << 10 : unit == 'M' ? n << 20 : n;
}

Options parseOptions(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool hasValue = i + 1 < argc;
        if (a == "--ranks" && hasValue) {
            o.ranks.clear();
            for (const std::string& n : splitList(argv[++i]))
                o.ranks.push_back(std::stoi(n));
        } else if (a == "--sizes" && hasValue) {
            o.sizes.clear();
            for (const std::string& n : splitList(argv[++i]))
                o.sizes.push_back(parseBytes(n));
        } else if (a == "--rounds" && hasValue) {
            o.rounds = std::max(1, std::stoi(argv[++i]));
        } else if (a == "--json" && hasValue) {
            o.json = argv[++i];
        } else {
            std::fprintf(stderr, "usage: strata-bench-collectives [--ranks N,N,...] [--sizes B,B,...] [--rounds R] "
                                 "[--json FILE]\n");
            std::exit(a == "--help" ? 0 : 2);
        }
    }
    return o;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Calls timed per turn: about 32 MiB moved through each rank, at least 3 and at most 40 calls
// (the same count on every rank: it depends on nothing measured).
int callsFor(int64_t bytes) { return int(std::clamp<int64_t>((int64_t{32} << 20) / std::max<int64_t>(bytes, 1), 3, 40)); }

// One rank: joins, then times both algorithms on each size; writes rank<r>.json into `dir`.
int rankMain(int rank, int ranks, int port, const std::string& dir, const Options& o, Clock::time_point forked)
{
    try {
        auto group = bench::joinGroup(rank, ranks, port, std::chrono::seconds(300));
        const double joinSeconds = std::chrono::duration<double>(Clock::now() - forked).count();
        Json sizes = Json::object();
        for (int64_t bytes : o.sizes) {
            std::vector<float> buffer(size_t(bytes) / sizeof(float), 1.0f);
            Json perAlgorithm{{"ring", Json::array()}, {"halving_doubling", Json::array()}};
            const int calls = callsFor(bytes);
            for (int round = 0; round < o.rounds; ++round)
                for (int turn = 0; turn < 2; ++turn) {
                    const bool ringFirst = round % 2 == 0;
                    const AllReduceAlgorithm a = (turn == 0) == ringFirst ? AllReduceAlgorithm::Ring
                                                                         : AllReduceAlgorithm::HalvingDoubling;
                    group->allReduce(buffer, a); // untimed: the algorithm's buffers built, the peers awake
                    group->barrier();
                    const auto start = Clock::now();
                    for (int c = 0; c < calls; ++c)
                        group->allReduce(buffer, a);
                    const double perCall = std::chrono::duration<double>(Clock::now() - start).count() / calls;
                    perAlgorithm[a == AllReduceAlgorithm::Ring ? "ring" : "halving_doubling"].push_back(perCall);
                }
            sizes[std::to_string(bytes)] = perAlgorithm;
        }
        group->leaveTogether();
        std::ofstream(dir + "/rank" + std::to_string(rank) + ".json") << Json{{"join_seconds", joinSeconds}, {"sizes", sizes}}.dump();
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "strata-bench-collectives: rank %d of %d: %s\n", rank, ranks, e.what());
        return 1;
    }
}

std::string human(int64_t bytes)
{
    return bytes >= (1 << 20) ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes >> 10) + " KiB";
}

// The ranks' files for one N, summarized; null when a rank failed.
Json measureRanks(int ranks, const Options& o)
{
    char pattern[] = "/tmp/strata-bench-collectives-XXXXXX";
    if (!::mkdtemp(pattern))
        return nullptr;
    const std::string dir = pattern;
    const int port = bench::freePort();
    const auto forked = Clock::now();
    const bool ok = bench::forkRanks(ranks, [&](int rank) { return rankMain(rank, ranks, port, dir, o, forked); });
    std::vector<Json> reports;
    for (int r = 0; ok && r < ranks; ++r) {
        std::ifstream in(dir + "/rank" + std::to_string(r) + ".json");
        reports.push_back(Json::parse(in, nullptr, false));
    }
    std::filesystem::remove_all(dir);
    if (!ok)
        return nullptr;
    double join = 0;
    for (const Json& r : reports)
        join = std::max(join, r["join_seconds"].get<double>());
    Json out{{"ranks", ranks}, {"join_seconds", join}, {"sizes", Json::array()}};
    for (int64_t bytes : o.sizes) {
        Json s{{"bytes", bytes}, {"chosen", distribute::algorithmName(distribute::allReduceAlgorithmFor(ranks, size_t(bytes)))}};
        for (const char* a : {"ring", "halving_doubling"}) {
            std::vector<double> rounds;
            for (int round = 0; round < o.rounds; ++round) {
                double sum = 0;
                for (const Json& r : reports)
                    sum += r["sizes"][std::to_string(bytes)][a][size_t(round)].get<double>();
                rounds.push_back(sum / ranks);
            }
            s[std::string(a) + "_seconds"] = median(rounds);
        }
        out["sizes"].push_back(s);
    }
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    const Options o = parseOptions(argc, argv);
    Json results = Json::array();
    std::printf("strata-bench-collectives on %s\n", bench::cpuName().c_str());
    std::printf("%6s %10s", "ranks", "join ms");
    for (int64_t bytes : o.sizes)
        std::printf(" | %7s: ring ms  h-d ms  chosen", human(bytes).c_str());
    std::printf("\n");
    for (int ranks : o.ranks) {
        const Json r = measureRanks(ranks, o);
        if (r.is_null()) {
            std::fprintf(stderr, "strata-bench-collectives: a rank of %d failed\n", ranks);
            return 1;
        }
        std::printf("%6d %10.1f", ranks, r["join_seconds"].get<double>() * 1e3);
        for (const Json& s : r["sizes"])
            std::printf(" | %16.2f %7.2f  %s", s["ring_seconds"].get<double>() * 1e3,
                        s["halving_doubling_seconds"].get<double>() * 1e3,
                        s["chosen"].get<std::string>() == "chunked ring" ? "ring" : "h-d");
        std::printf("\n");
        std::fflush(stdout);
        results.push_back(r);
    }
    if (!o.json.empty()) {
        std::filesystem::path p(o.json);
        if (p.has_parent_path())
            std::filesystem::create_directories(p.parent_path());
        std::ofstream(o.json) << Json{{"benchmark", "collectives against the number of tasks, on 127.0.0.1"},
                                      {"cpu", bench::cpuName()},
                                      {"cores", std::thread::hardware_concurrency()},
                                      {"rounds", o.rounds},
                                      {"results", results}}
                                     .dump(1)
                              << "\n";
        std::printf("results: %s\n", o.json.c_str());
    }
    return 0;
}
