// strata-bench-ps: a ParameterServer worker's round trip (pull every shard, push every
// gradient) against a real ps task PROCESS on 127.0.0.1, against raw ZeroMQ's round trip of
// the same bytes, interleaved.
//
//   strata-bench-ps [--engine PATH] [--sizes B,B,...] [--rounds N] [--block-mib M] [--quick]
//
// Sizes are the gradient's bytes (optional K or M suffix). For each size the ps task is
// `strata-engine train` of an experiment whose only variables are one Dense layer of that
// size (SGD), started as the launcher starts it (the token on stdin); this process is its
// coordinator (it sends the variables) and its worker (ps/ps_client.h: the code a worker
// runs). Contenders, each moving the size's bytes to the server and back per round trip:
//
//   ps          PsClient::pull + PsClient::push, as a worker's step does: a pull request,
//               the values back, the gradient out, the ps applying SGD, an acknowledgement;
//   zmq curve   a DEALER sending the bytes to a ROUTER in a process of its own (as the ps is)
//               that sends them back, with the job's CURVE keys (the security the ps uses):
//               the reference;
//   zmq plain   the same without CURVE, for information (what encryption costs).
//
// Per round, per size, the contenders take turns in a shuffled order until each has moved
// --block-mib each way. Reported: MB/s each way (bytes / seconds per round trip), medians
// over rounds, and ps / zmq curve per round (min/median/max); the target is a median of at
// least 0.90. Exits 0 when the target is missed (a report).

#include "cpu_name.h"
#include "ps/parameter_server_strategy.h"
#include "strata/nn/sequential.h"
#include "strata/schema/experiment.h"

#include <zmq_addon.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace strata;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

namespace {

constexpr const char* kToken = "strata-bench-ps-token";

int64_t parseBytes(std::string text)
{
    int64_t scale = 1;
    if (!text.empty() && (text.back() == 'K' || text.back() == 'k'))
        scale = 1 << 10;
    if (!text.empty() && (text.back() == 'M' || text.back() == 'm'))
        scale = 1 << 20;
    if (scale > 1)
        text.pop_back();
    return std::stoll(text) * scale;
}

int freePort()
{
    zmq::context_t c;
    zmq::socket_t s(c, zmq::socket_type::router);
    s.bind("tcp://127.0.0.1:*");
    const std::string endpoint = s.get(zmq::sockopt::last_endpoint);
    return std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
}

// One Dense layer (no bias) of `bytes` of weights: rows x 256 floats.
Json experimentOf(int64_t bytes, int chiefPort, int psPort)
{
    const int64_t units = 256, rows = std::max<int64_t>(1, bytes / (4 * units));
    return Json{{"strata", 1},
                {"name", "bench-ps"},
                {"seed", 1},
                {"strategy", {{"type", "ParameterServer"}, {"timeout_seconds", 30}}},
                {"cluster",
                 {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
                  {"tasks", {{{"type", "chief"}, {"node", "local"}, {"port", chiefPort}},
                             {{"type", "worker"}, {"node", "local"}, {"port", chiefPort + 1}},
                             {{"type", "ps"}, {"node", "local"}, {"port", psPort}}}}}},
                {"model", {{"input_shape", {rows}}, {"layers", {{{"type", "Dense"}, {"units", units}, {"use_bias", false}}}}}},
                {"data", {{"source", {{"type", "synthetic"}, {"task", "regression"}, {"samples", 8}, {"features", rows}}}}},
                {"training", {{"epochs", 1}, {"batch_size", 8}, {"loss", "mse"},
                              {"optimizer", {{"type", "sgd"}, {"learning_rate", 1e-6}}}}}};
}

// The ps task as its own process, the token on its stdin.
pid_t startPs(const std::string& engine, const std::string& experiment, const std::string& runDir)
{
    int fds[2];
    if (pipe(fds) != 0)
        throw std::runtime_error("pipe failed");
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[0], STDIN_FILENO);
        close(fds[1]);
        const int devnull = ::open("/dev/null", O_WRONLY);
        dup2(devnull, STDOUT_FILENO);
        execl(engine.c_str(), engine.c_str(), "train", experiment.c_str(), "--task", "ps:0", "--run-dir",
              runDir.c_str(), "--quiet", static_cast<char*>(nullptr));
        _exit(127);
    }
    close(fds[0]);
    const std::string line = std::string(kToken) + "\n";
    if (write(fds[1], line.data(), line.size()) != static_cast<ssize_t>(line.size()))
        throw std::runtime_error("cannot give the ps task its token");
    close(fds[1]);
    return pid;
}

// Sends back whatever it receives, until `stop`, with a context (an I/O thread) of its own.
void echo(const ps::CurveKeys* keys, const std::string& endpoint, std::atomic<bool>& stop)
{
    zmq::context_t context;
    zmq::socket_t router(context, zmq::socket_type::router);
    router.set(zmq::sockopt::linger, 0);
    if (keys) {
        router.set(zmq::sockopt::curve_server, true);
        router.set(zmq::sockopt::curve_secretkey, keys->serverSecret);
    }
    router.bind(endpoint);
    while (!stop) {
        zmq::pollitem_t item{router.handle(), 0, ZMQ_POLLIN, 0};
        if (zmq::poll(&item, 1, std::chrono::milliseconds(50)) == 0)
            continue;
        std::vector<zmq::message_t> frames;
        if (zmq::recv_multipart(router, std::back_inserter(frames)))
            zmq::send_multipart(router, frames);
    }
}

struct RawClient {
    zmq::socket_t socket;
    std::vector<float> payload;
    RawClient(zmq::context_t& c, const ps::CurveKeys* keys, const std::string& endpoint, size_t floats)
        : socket(c, zmq::socket_type::dealer), payload(floats, 0.5f)
    {
        socket.set(zmq::sockopt::linger, 0);
        if (keys) {
            socket.set(zmq::sockopt::curve_serverkey, keys->serverPublic);
            socket.set(zmq::sockopt::curve_publickey, keys->clientPublic);
            socket.set(zmq::sockopt::curve_secretkey, keys->clientSecret);
        }
        socket.connect(endpoint);
    }
    void roundTrip()
    {
        socket.send(zmq::buffer(payload.data(), payload.size() * sizeof(float)));
        zmq::message_t back;
        if (!socket.recv(back) || back.size() != payload.size() * sizeof(float))
            throw std::runtime_error("raw round trip failed");
    }
};

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    std::string engine = std::string(STRATA_ENGINE_PATH);
    std::vector<int64_t> sizes = {256 << 10, 1 << 20, 4 << 20, 16 << 20};
    int rounds = 5;
    int64_t blockBytes = int64_t{64} << 20;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--quick") { // smoke run: not a valid report
            rounds = 2;
            blockBytes = int64_t{8} << 20;
            continue;
        }
        if (i + 1 >= argc)
            break;
        const std::string value = argv[++i];
        if (flag == "--engine")
            engine = value;
        else if (flag == "--rounds")
            rounds = std::stoi(value);
        else if (flag == "--block-mib")
            blockBytes = std::stoll(value) << 20;
        else if (flag == "--sizes") {
            sizes.clear();
            for (size_t at = 0; at <= value.size();) {
                const size_t comma = std::min(value.find(',', at), value.size());
                sizes.push_back(parseBytes(value.substr(at, comma - at)));
                at = comma + 1;
            }
        }
    }
    const ps::CurveKeys keys = ps::deriveCurveKeys(kToken);
    // The reference's server is a process of its own, as the ps is, forked while this process
    // holds no ZeroMQ context (they do not survive a fork).
    const std::string curveEndpoint = "tcp://127.0.0.1:" + std::to_string(freePort());
    const std::string plainEndpoint = "tcp://127.0.0.1:" + std::to_string(freePort());
    const pid_t echoPid = fork();
    if (echoPid == 0) {
        std::atomic<bool> never{false};
        std::thread plainServer(echo, nullptr, plainEndpoint, std::ref(never));
        echo(&keys, curveEndpoint, never);
        _exit(0);
    }
    std::printf("strata-bench-ps on %s\n", strata::bench::cpuName().c_str());
    std::printf("%10s  %12s  %12s  %12s  %22s\n", "gradient", "ps MB/s", "zmq curve", "zmq plain", "ps / zmq curve (min/med/max)");
    char dirTemplate[] = "/tmp/strata-bench-ps-XXXXXX";
    const std::string dir = mkdtemp(dirTemplate);
    bool met = true;
    for (const int64_t size : sizes) {
        const int chiefPort = freePort(), psPort = freePort();
        const Json doc = experimentOf(size, chiefPort, psPort);
        const std::string file = dir + "/bench-" + std::to_string(size) + ".strata.json";
        std::ofstream(file) << doc.dump(2);
        const schema::Experiment experiment = schema::loadExperiment(file);
        const pid_t psPid = startPs(engine, file, dir + "/run-" + std::to_string(size));

        nn::Sequential model(experiment.model, experiment.seed);
        const ps::JobLayout layout = ps::JobLayout::of(experiment, model);
        zmq::context_t context;
        ps::PsClient client(context, keys, layout);
        auto optimizer = nn::createOptimizer(experiment.training.optimizer);
        const auto& params = model.parameters();
        client.waitForServers(std::chrono::seconds(60));
        client.init(params, *optimizer);
        const int64_t bytes = params[0]->value.numel() * 4;

        RawClient curve(context, &keys, curveEndpoint, static_cast<size_t>(params[0]->value.numel()));
        RawClient plain(context, nullptr, plainEndpoint, static_cast<size_t>(params[0]->value.numel()));
        curve.roundTrip();
        plain.roundTrip();

        const int turns = static_cast<int>(std::max<int64_t>(4, blockBytes / bytes));
        std::vector<std::function<void()>> contenders = {
            [&] {
                client.pull(params);
                client.push(params);
            },
            [&] { curve.roundTrip(); },
            [&] { plain.roundTrip(); }};
        std::vector<std::vector<double>> rates(contenders.size());
        std::vector<double> ratios;
        std::mt19937 rng(7);
        for (int r = 0; r < rounds; ++r) {
            std::vector<size_t> order = {0, 1, 2};
            std::shuffle(order.begin(), order.end(), rng);
            std::vector<double> rate(contenders.size());
            for (size_t c : order) {
                contenders[c]();
                const auto started = Clock::now();
                for (int t = 0; t < turns; ++t)
                    contenders[c]();
                const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
                rate[c] = static_cast<double>(bytes) * turns / seconds / 1e6;
                rates[c].push_back(rate[c]);
            }
            client.ping(); // the ps hears from its coordinator
            ratios.push_back(rate[0] / rate[1]);
        }
        client.shutdown("completed");
        int status = 0;
        waitpid(psPid, &status, 0);
        const double med = median(ratios);
        met = met && med >= 0.9;
        char sizeText[32];
        std::snprintf(sizeText, sizeof sizeText, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
        std::printf("%10s  %12.0f  %12.0f  %12.0f  %6.2f / %4.2f / %4.2f\n", sizeText, median(rates[0]),
                    median(rates[1]), median(rates[2]), *std::min_element(ratios.begin(), ratios.end()), med,
                    *std::max_element(ratios.begin(), ratios.end()));
        std::fflush(stdout);
    }
    std::printf("target (median ps / zmq curve >= 0.90 at every size): %s\n", met ? "met" : "MISSED");
    std::filesystem::remove_all(dir);
    kill(echoPid, SIGKILL);
    waitpid(echoPid, nullptr, 0);
    return 0;
}
