// `strata-engine plan-probe EXPERIMENT [--ranks N] [--no-ps] [--quick]`: the scaling planner's
// probe of this host for the experiment (docs/planner.md, docs/event-schema.md "Planner
// probe"): the model's step on one replica at several thread counts, alone and with the cores
// full; an all-reduce sweep between N processes over loopback, fitted to the ring's latency and
// bandwidth; a short MultiWorkerMirrored job of the experiment on N worker tasks; a
// ParameterServer worker's round trip against a ps task process. Every measured
// process is forked from this one before it starts any thread of its own (Gloo, OpenMP and
// ZeroMQ threads do not survive a fork); the ps round trip, which starts ZeroMQ here, is last.

#include "cli.h"

#include "strata/core/host_info.h"
#include "strata/distribute/partitioner.h"
#include "strata/nn/sequential.h"
#include "strata/report/hello_event.h"
#include "strata/schema/events.h"
#include "strata/schema/experiment.h"
#include "strata/training/scaling_probe.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

namespace strata::cli {

namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

// A directory for the children's results, removed with this object.
struct ScratchDir {
    std::string path;
    ScratchDir()
    {
        char pattern[] = "/tmp/strata-plan-probe-XXXXXX";
        if (!::mkdtemp(pattern))
            throw IoError("cannot create a scratch directory for the probe");
        path = pattern;
    }
    ~ScratchDir()
    {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
    std::string file(const std::string& name) const { return path + "/" + name; }
};

// Runs body(i) in `n` children at once; `body` returns its result, written to `dir`/name<i>.json.
// The children wait for each other once ready (`ready` is their barrier) so that loaded
// timings overlap. Throws with the first child's message when one fails.
void runChildren(int n, const ScratchDir& dir, const std::string& name,
                 const std::function<Json(int, const std::function<void()>& ready)>& body)
{
    int readyPipe[2], goPipe[2];
    if (::pipe(readyPipe) != 0 || ::pipe(goPipe) != 0)
        throw IoError("cannot create the probe's pipes");
    std::vector<pid_t> pids;
    for (int i = 0; i < n; ++i) {
        std::fflush(stdout);
        std::fflush(stderr);
        const pid_t pid = ::fork();
        if (pid < 0)
            throw IoError("cannot start the probe's processes");
        if (pid == 0) {
            ::close(readyPipe[0]);
            ::close(goPipe[1]);
            int rc = 0;
            Json result;
            try {
                result = body(i, [&] {
                    char c = 1;
                    if (::write(readyPipe[1], &c, 1) != 1 || ::read(goPipe[0], &c, 1) != 1)
                        throw IoError("the probe's parent went away");
                });
            } catch (const std::exception& e) {
                result = Json{{"error", e.what()}};
                rc = 1;
            }
            std::ofstream(dir.file(name + std::to_string(i) + ".json")) << result.dump();
            std::fflush(nullptr);
            ::_exit(rc);
        }
        pids.push_back(pid);
    }
    ::close(readyPipe[1]);
    ::close(goPipe[0]);
    // Every child ready (or gone): let them all go.
    char c = 0;
    int ready = 0;
    while (ready < n && ::read(readyPipe[0], &c, 1) == 1)
        ++ready;
    const std::string go(static_cast<size_t>(n), '\1');
    [[maybe_unused]] const auto written = ::write(goPipe[1], go.data(), go.size());
    ::close(goPipe[1]);
    ::close(readyPipe[0]);
    for (const pid_t pid : pids) {
        int status = 0;
        ::waitpid(pid, &status, 0);
    }
    for (int i = 0; i < n; ++i) {
        std::ifstream in(dir.file(name + std::to_string(i) + ".json"));
        const Json r = Json::parse(in, nullptr, false);
        if (r.is_discarded())
            throw Error("the probe's " + name + " process " + std::to_string(i) + " ended without a result");
        if (r.contains("error"))
            throw Error("the probe's " + name + " process " + std::to_string(i) + ": " +
                                  r["error"].get<std::string>());
    }
}

Json readChild(const ScratchDir& dir, const std::string& name, int i)
{
    std::ifstream in(dir.file(name + std::to_string(i) + ".json"));
    return Json::parse(in);
}

int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

std::string randomToken()
{
    std::random_device rd;
    const char* hex = "0123456789abcdef";
    std::string token;
    for (int i = 0; i < 32; ++i)
        token += hex[rd() % 16];
    return token;
}

// The compute measurements: (threads, copies) pairs, each copy a process of its own.
Json probeCompute(const schema::Experiment& e, int cores, bool quick, const ScratchDir& dir)
{
    const int warmup = quick ? 2 : 5, steps = quick ? 8 : 30;
    const double seconds = quick ? 0.1 : 0.5; // and at least this long: fast steps vary more
    std::vector<std::pair<int, int>> points{{1, 1}};
    if (cores > 1) {
        points.push_back({1, cores});
        points.push_back({cores, 1});
    }
    if (const int t = static_cast<int>(e.training.threads); t > 1 && t < cores) {
        points.push_back({t, 1});
        points.push_back({t, std::max(1, cores / t)});
    }
    Json out{{"batch", e.training.batchSize}, {"threads", e.training.threads},
             {"prefetch", e.data.prefetch}, {"points", Json::array()}};
    for (const auto& [threads, copies] : points) {
        const std::string name = "compute-" + std::to_string(threads) + "x" + std::to_string(copies) + "-";
        runChildren(copies, dir, name, [&, threads = threads](int, const std::function<void()>& ready) {
            ready(); // the data loaded by every copy before any times
            const run::ComputeTiming t = run::timeCompute(e, threads, warmup, steps, seconds);
            return Json{{"step", t.step},        {"forward", t.forward},   {"backward", t.backward},
                        {"optimizer", t.optimizer}, {"input", t.input},     {"ready", t.gradientReady},
                        {"variable_bytes", t.variableBytes}};
        });
        std::vector<double> samples;
        for (int c = 0; c < copies; ++c) {
            const Json copy = readChild(dir, name, c);
            for (double s : copy["step"])
                samples.push_back(s);
        }
        out["points"].push_back({{"threads", threads}, {"copies", copies}, {"step_s", run::spreadJson(samples)}});
        if (threads == 1 && copies == 1) {
            const Json alone = readChild(dir, name, 0);
            // Means: the parts add up to the step a rate sees.
            const auto mean = [&](const char* key) { return run::spreadJson(alone[key].get<std::vector<double>>())["mean"]; };
            out["forward_s"] = mean("forward");
            out["backward_s"] = mean("backward");
            out["optimizer_s"] = mean("optimizer");
            out["input_s"] = run::spreadJson(alone["input"].get<std::vector<double>>());
            out["gradient_ready_s"] = alone["ready"];
            out["variable_bytes"] = alone["variable_bytes"];
        }
    }
    return out;
}

// The gradient's own size, rounded to whole floats: the sweep's point the predictions rest on.
int64_t ownSweepBytes(int64_t gradientBytes) { return std::max<int64_t>(4, gradientBytes / 4 * 4); }

// The all-reduce sweep between `ranks` processes on 127.0.0.1.
// `crowded`: fewer sizes (its ranks outnumber the cores: each step waits for a peer's turn).
Json probeCollective(int ranks, int64_t gradientBytes, double stepSeconds, bool quick, bool crowded, const ScratchDir& dir)
{
    std::vector<int64_t> sizes = quick || crowded ? std::vector<int64_t>{4 << 10, 64 << 10, 1 << 20}
                                                  : std::vector<int64_t>{4 << 10,   16 << 10, 64 << 10, 256 << 10,
                                                                         1 << 20,   4 << 20,  16 << 20, 64 << 20};
    // Sizes up to 4 times the gradient's (at least 4 MiB): what its buckets can be.
    const int64_t largest = std::max<int64_t>(int64_t{4} << 20, 4 * gradientBytes);
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](int64_t b) { return b > largest; }), sizes.end());
    const int64_t own = ownSweepBytes(gradientBytes);
    if (std::find(sizes.begin(), sizes.end(), own) == sizes.end())
        sizes.push_back(own);
    std::sort(sizes.begin(), sizes.end());
    const int reps = quick ? 5 : 7;
    const int port = freePort();
    const std::string token = randomToken();
    runChildren(ranks, dir, "rank", [&](int rank, const std::function<void()>& ready) {
        ready();
        distribute::ProcessGroupOptions o;
        for (int i = 0; i < ranks; ++i)
            o.taskNames.push_back("worker:" + std::to_string(i));
        o.rank = rank;
        o.rendezvousHost = o.host = "127.0.0.1";
        o.rendezvousPort = port;
        o.token = token;
        o.timeout = std::chrono::seconds(60);
        distribute::ProcessGroup group(o);
        Json r = run::timeAllReduce(group, sizes, reps);
        // The size the predictions rest on, timed three times as long and as a job meets it (after
        // a step's compute): back to back, the ranks' threads fall into and out of each other's
        // way on shared cores for whole rounds.
        const Json longer = run::timeAllReduce(group, {own}, 3 * reps, stepSeconds);
        const size_t at = static_cast<size_t>(std::find(sizes.begin(), sizes.end(), own) - sizes.begin());
        r["seconds"][at] = longer["seconds"][0];
        r["cpu_seconds"][at] = longer["cpu_seconds"][0];
        r["algorithm"] = group.algorithm();
        group.leaveTogether();
        return r;
    });
    // Per size and round, the ranks' mean; the CPU per call, the ranks' mean.
    std::vector<Json> perRank;
    for (int r = 0; r < ranks; ++r)
        perRank.push_back(readChild(dir, "rank", r));
    Json points = Json::array();
    std::vector<int64_t> fitBytes;
    std::vector<double> fitSeconds;
    double cpuSum = 0, secondsSum = 0;
    for (size_t s = 0; s < sizes.size(); ++s) {
        const size_t n = perRank[0]["seconds"][s].size();
        std::vector<double> rounds(n, 0.0);
        double cpu = 0;
        for (const Json& pr : perRank) {
            for (size_t k = 0; k < n; ++k)
                rounds[k] += pr["seconds"][s][k].get<double>() / ranks;
            cpu += pr["cpu_seconds"][s].get<double>() / ranks;
        }
        const Json spread = run::spreadJson(rounds);
        points.push_back({{"bytes", sizes[s]}, {"seconds", spread}, {"cpu_s", cpu}});
        fitBytes.push_back(sizes[s]);
        fitSeconds.push_back(spread["median"].get<double>());
        cpuSum += cpu;
        secondsSum += spread["median"].get<double>();
    }
    const run::RingFit fit = run::fitRing(ranks, fitBytes, fitSeconds);
    return {{"ranks", ranks},
            {"crowded", crowded},
            {"transport", "loopback (127.0.0.1)"},
            {"algorithm", perRank[0]["algorithm"]},
            {"halving_doubling_from_ranks", distribute::kHalvingDoublingFromRanks},
            {"halving_doubling_up_to_bytes", distribute::kHalvingDoublingUpToBytes},
            {"points", points},
            {"latency_s", fit.latency},
            {"bytes_per_s", fit.bytesPerSecond},
            {"cpu_per_s", secondsSum > 0 ? cpuSum / secondsSum : 0.0},
            {"fit_error", fit.relativeError}};
}

// A process's CPU seconds so far, every thread of it (ZeroMQ's I/O thread does the ps's
// encryption), from the scheduler's nanosecond counts in /proc (clock ticks are too coarse for
// a few milliseconds a round trip).
double cpuSecondsOf(pid_t pid)
{
    double ns = 0;
    std::error_code ec;
    for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
        std::ifstream in(task.path() / "schedstat");
        double onCpu = 0;
        if (in >> onCpu)
            ns += onCpu;
    }
    return ns * 1e-9;
}

// A task of the job in `file`, started from this binary (`train --task`) with the job's token
// on its stdin and its events and messages into `log`.
pid_t startTask(const std::string& file, const std::string& task, const std::string& runDir, const std::string& token,
                const std::string& log)
{
    int fds[2];
    if (::pipe(fds) != 0)
        throw IoError("cannot start the probe's " + task + " task");
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = ::fork();
    if (pid < 0)
        throw IoError("cannot start the probe's " + task + " task");
    if (pid == 0) {
        ::dup2(fds[0], STDIN_FILENO);
        ::close(fds[0]);
        ::close(fds[1]);
        const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ::dup2(out, STDOUT_FILENO);
        ::dup2(out, STDERR_FILENO);
        ::execl("/proc/self/exe", "strata-engine", "train", file.c_str(), "--task", task.c_str(), "--run-dir",
                runDir.c_str(), "--quiet", "--events", "stdout", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(fds[0]);
    const std::string line = token + "\n";
    [[maybe_unused]] const auto written = ::write(fds[1], line.data(), line.size());
    ::close(fds[1]);
    return pid;
}

// The experiment's own MultiWorkerMirrored job, `ranks` worker tasks on 127.0.0.1 started as
// the app starts them, for `warmup` steps and then about `seconds` of steps (`stepGuess` a
// step): what the model's parts add up to when a job runs them, its bookkeeping, input
// pipeline and fresh connections included. From worker:0's step records (a synchronous job's
// tasks end each step together): the mean step over `rounds` rounds of consecutive steps.
Json rehearseMultiWorker(const schema::Experiment& e, int ranks, int cores, double stepGuess, double seconds,
                         int rounds, const ScratchDir& dir)
{
    const int warmup = 10;
    const int steps = static_cast<int>(std::clamp(seconds / std::max(stepGuess, 1e-6), 2.0 * rounds, 5000.0));
    Json doc = schema::experimentToJson(e);
    Json strategy{{"type", "MultiWorkerMirrored"}, {"timeout_seconds", 60}};
    if (!e.strategy.bucketBytesAuto) // "auto" would rehearse the tuning; a job after it runs the default or better
        strategy["bucket_bytes"] = e.strategy.bucketBytes;
    doc["strategy"] = strategy;
    doc["cluster"] = {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
                      {"tasks", {{{"type", "worker"}, {"node", "local"}, {"count", ranks}, {"port", freePort()}}}}};
    doc["training"]["epochs"] = 1;
    doc["training"]["steps_per_epoch"] = warmup + steps;
    doc["training"]["checkpoint"] = {{"enabled", false}};
    doc["data"]["validation"] = "none";
    doc["data"]["evaluate_test"] = false;
    const std::string file = dir.file("rehearsal.strata.json");
    std::ofstream(file) << doc.dump();
    const std::string runDir = dir.file("rehearsal-run"), token = randomToken();
    std::vector<pid_t> pids;
    for (int i = 0; i < ranks; ++i)
        pids.push_back(startTask(file, "worker:" + std::to_string(i), runDir, token,
                                 dir.file("rehearsal-" + std::to_string(i) + ".log")));
    // Every task to its end, or none past the deadline.
    const auto deadline = Clock::now() + std::chrono::seconds(120) + std::chrono::duration<double>(10 * seconds);
    std::vector<int> status(pids.size(), 0);
    std::vector<bool> ended(pids.size(), false);
    for (size_t done = 0; done < pids.size();) {
        for (size_t i = 0; i < pids.size(); ++i)
            if (!ended[i] && ::waitpid(pids[i], &status[i], WNOHANG) == pids[i]) {
                ended[i] = true;
                ++done;
            }
        if (done < pids.size() && Clock::now() > deadline) {
            for (size_t i = 0; i < pids.size(); ++i)
                if (!ended[i]) {
                    ::kill(pids[i], SIGKILL);
                    ::waitpid(pids[i], nullptr, 0);
                }
            throw Error("the probe's MultiWorkerMirrored rehearsal did not end within its time");
        }
        if (done < pids.size())
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (size_t i = 0; i < pids.size(); ++i)
        if (!WIFEXITED(status[i]) || WEXITSTATUS(status[i]) != 0) {
            // The task's error event says why.
            std::ifstream log(dir.file("rehearsal-" + std::to_string(i) + ".log"));
            std::string line, why = "it ended with status " + std::to_string(status[i]);
            while (std::getline(log, line)) {
                const Json event = Json::parse(line, nullptr, false);
                if (!event.is_discarded() && event.value("type", "") == "error")
                    why = event.value("message", why);
            }
            throw Error("the probe's MultiWorkerMirrored rehearsal failed on worker:" + std::to_string(i) + ": " + why);
        }
    std::vector<double> ends; // when each step after the warm-up ended
    std::ifstream records(runDir + "/steps-worker-0.jsonl");
    for (std::string line; std::getline(records, line);) {
        const Json r = Json::parse(line, nullptr, false);
        if (!r.is_discarded() && r.value("step", 0) >= warmup)
            ends.push_back(r.value("t", 0.0));
    }
    if (ends.size() < static_cast<size_t>(rounds) + 1)
        throw Error("the probe's MultiWorkerMirrored rehearsal recorded " + std::to_string(ends.size()) + " steps");
    std::vector<double> means;
    for (int k = 0; k < rounds; ++k) {
        const size_t from = static_cast<size_t>(k) * (ends.size() - 1) / rounds,
                     to = static_cast<size_t>(k + 1) * (ends.size() - 1) / rounds;
        means.push_back((ends[to] - ends[from]) / static_cast<double>(to - from));
    }
    const int threads = e.training.threads > 0 ? static_cast<int>(e.training.threads) : std::max(1, cores / ranks);
    return {{"threads", threads}, {"steps", ends.size() - 1}, {"step_s", run::spreadJson(means)}};
}

// One ParameterServer round-trip measurement: `doc` (a ParameterServer experiment with one
// ps) served by a ps task started from this binary, this process its coordinator and worker.
Json psRoundTrips(const Json& doc, const ScratchDir& dir, const std::string& name, bool quick)
{
    const std::string file = dir.file(name + ".strata.json");
    std::ofstream(file) << doc.dump();
    const schema::Experiment experiment = schema::loadExperiment(file);
    const std::string token = randomToken();
    const pid_t pid = startTask(file, "ps:0", dir.file(name + "-run"), token, "/dev/null");
    Json r;
    try {
        r = run::timePsRoundTrips(experiment, token, quick ? 3 : 10, quick ? 10 : 40, quick ? 0.3 : 1.5,
                                  [pid] { return cpuSecondsOf(pid); });
    } catch (...) {
        ::kill(pid, SIGTERM);
        ::waitpid(pid, nullptr, 0);
        throw;
    }
    ::waitpid(pid, nullptr, 0);
    return r;
}

Json psCluster()
{
    return {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
            {"tasks",
             {{{"type", "chief"}, {"node", "local"}, {"port", freePort()}},
              {{"type", "worker"}, {"node", "local"}, {"port", freePort()}},
              {{"type", "ps"}, {"node", "local"}, {"port", freePort()}}}}};
}

// The largest share of the variables' bytes one ps holds, for 1 to 8 ps tasks, placed by the
// experiment's partitioner as a ParameterServer job would place them.
Json busiestShares(const schema::Experiment& e)
{
    const nn::Sequential model(e.model, e.seed);
    std::vector<distribute::VariableDescription> variables;
    int64_t total = 0;
    for (const nn::Parameter* p : model.parameters()) {
        variables.push_back({p->name, p->value.shape()});
        total += p->value.numel() * 4;
    }
    Json shares = Json::array();
    for (int ps = 1; ps <= 8; ++ps) {
        std::vector<int64_t> held(static_cast<size_t>(ps), 0);
        for (const auto& v : distribute::placeVariables(variables, e.strategy.partitioner, ps))
            for (const auto& shard : v.shards)
                held[static_cast<size_t>(shard.ps)] += shard.bytes();
        shares.push_back(total > 0 ? static_cast<double>(*std::max_element(held.begin(), held.end())) / total : 1.0);
    }
    return shares;
}

Json probeParameterServer(const schema::Experiment& e, bool quick, const ScratchDir& dir)
{
    Json doc = schema::experimentToJson(e);
    doc["strategy"] = {{"type", "ParameterServer"}, {"timeout_seconds", 30}};
    doc["cluster"] = psCluster();
    const Json full = psRoundTrips(doc, dir, "ps-model", quick);
    // A small variable with the same optimizer: the round trip's latency.
    Json small = doc;
    small["model"] = {{"input_shape", {4}}, {"layers", {{{"type", "Dense"}, {"units", 256}, {"use_bias", false}}}}};
    small["data"] = {{"source", {{"type", "synthetic"}, {"task", "regression"}, {"samples", 8}, {"features", 4}}}};
    small["training"]["loss"] = "mse";
    small["training"]["metrics"] = Json::array();
    small["cluster"] = psCluster();
    const Json tiny = psRoundTrips(small, dir, "ps-small", quick);

    const Json fullSpread = run::spreadJson(full["seconds"].get<std::vector<double>>());
    const Json tinySpread = run::spreadJson(tiny["seconds"].get<std::vector<double>>());
    const double S = full["variable_bytes"].get<double>(), s = tiny["variable_bytes"].get<double>();
    const double tS = fullSpread["mean"].get<double>(), ts = tinySpread["mean"].get<double>();
    // round trip = a + 2 S / B through the two sizes
    const double B = tS > ts && S > s ? 2 * (S - s) / (tS - ts) : 0.0;
    const double a = B > 0 ? std::max(0.0, ts - 2 * s / B) : ts;
    return {{"variable_bytes", full["variable_bytes"]},
            {"round_trip_s", fullSpread},
            {"small_bytes", tiny["variable_bytes"]},
            {"small_round_trip_s", tinySpread},
            {"latency_s", a},
            {"bytes_per_s", B},
            {"worker_cpu_s", full["cpu_seconds"]},
            {"server_cpu_s", full["server_cpu_s"]},
            {"busiest_share_by_ps", busiestShares(e)}};
}

// Every core's busy time so far (user, nice, system, irq, softirq, steal), from /proc/stat.
double hostBusySeconds()
{
    std::ifstream in("/proc/stat");
    std::string cpu;
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    return (user + nice + system + irq + softirq + steal) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// This process's and its ended children's CPU seconds.
double ownCpuSeconds()
{
    double seconds = 0;
    for (const int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
        rusage u{};
        ::getrusage(who, &u);
        seconds += static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
                   1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
    }
    return seconds;
}

} // namespace

int planProbeCommand(const Args& args)
{
    run::EventSink events("plan-probe", stdout);
    events.emit(schema::event::kHello, run::helloFields());
    return guarded(events, [&] {
        if (args.positional.size() != 1)
            throw UsageError("plan-probe needs exactly one experiment file");
        const auto started = Clock::now();
        const double busyBefore = hostBusySeconds(), ownBefore = ownCpuSeconds();
        const schema::Experiment e = schema::loadExperiment(args.positional[0]);
        const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        const double ranksValue = args.number("--ranks", 2);
        if (ranksValue < 2 || ranksValue > 64)
            throw UsageError("--ranks must be 2 to 64");
        const bool quick = args.has("--quick");
        const ScratchDir dir;

        const Json compute = probeCompute(e, cores, quick, dir);
        int64_t gradientBytes = 0;
        for (const auto& b : compute["variable_bytes"])
            gradientBytes += b.get<int64_t>();
        events.emit(schema::event::kProbeCompute, compute);
        double stepSeconds = 0; // one thread's step, alone
        for (const auto& p : compute["points"])
            if (p["threads"] == 1 && p["copies"] == 1)
                stepSeconds = p["step_s"]["mean"].get<double>();
        Json collective = probeCollective(static_cast<int>(ranksValue), gradientBytes, stepSeconds, quick, false, dir);
        {
            // The rehearsal's length from the parts: a loaded step and the gradient's all-reduce.
            double guess = stepSeconds;
            for (const auto& p : compute["points"])
                if (p["threads"] == 1 && p["copies"] == std::min(cores, static_cast<int>(ranksValue)))
                    guess = p["step_s"]["mean"].get<double>();
            for (const auto& p : collective["points"])
                if (p["bytes"] == ownSweepBytes(gradientBytes))
                    guess += p["seconds"]["mean"].get<double>();
            collective["rehearsal"] = rehearseMultiWorker(e, static_cast<int>(ranksValue), cores, guess,
                                                          quick ? 0.3 : 1.5, quick ? 5 : 7, dir);
        }
        events.emit(schema::event::kProbeCollective, collective);
        // Twice as many ranks as cores: what a collective takes when its processes share the cores.
        if (2 * cores > ranksValue)
            events.emit(schema::event::kProbeCollective,
                        probeCollective(2 * cores, gradientBytes, stepSeconds, quick, true, dir));
        if (!args.has("--no-ps"))
            events.emit(schema::event::kProbePs, probeParameterServer(e, quick, dir));
        const double wall = std::chrono::duration<double>(Clock::now() - started).count();
        // What other processes kept busy meanwhile: the host's busy time less the probe's own.
        const double others = std::max(0.0, hostBusySeconds() - busyBefore - (ownCpuSeconds() - ownBefore)) / wall;
        events.emit(schema::event::kProbeSummary,
                    {{"experiment", e.name},
                     {"other_busy_cores", others},
                     {"cpu", cpuModel()},
                     {"cores", cores},
                     {"parameters", gradientBytes / 4},
                     {"gradient_bytes", gradientBytes},
                     {"seconds", std::chrono::duration<double>(Clock::now() - started).count()}});
        return static_cast<int>(kOk);
    });
}

} // namespace strata::cli
