// strata-bench-slurm: a run submitted to Slurm against the same run on this machine
// (bench/README.md, "Slurm jobs"). Needs root (slurmd runs jobs as their users): without it,
// it says so and exits 0 with nothing measured.
//
//   strata-bench-slurm [--rounds N] [--epochs E] [--nodes N] [--tasks-per-node T] [--json FILE]
//
// The cluster: a real Slurm on this machine (tests/app/slurm_fixture.h: munged, slurmctld,
// --nodes slurmd, 2 by default), its node names resolving to their own loopback addresses; the
// run directory stands for the cluster's shared filesystem. The job: the tiny MLP of the app
// tests under MultiWorkerMirrored, --tasks-per-node workers on each node (1 by default); the
// same job with every worker on this machine (JobLauncher's local backend) is the reference. Rounds interleave the two, the order
// reversed every round, after a warm-up round.
//
// 1. Submit to first step: JobLauncher::start until every worker's first `step` event is in
//    the store (looked at every millisecond). For Slurm, split by what the run directory
//    records: sbatch (start -> the job id), queue (-> the task's supervisor started, its task
//    record's `started`), and from there to the first step.
// 2. The events' delay: for every `step` event written once its task was followed, when it was
//    in the store minus its own time (`t`, one clock: the nodes share the machine's), median and
//    95th percentile.
//
// Threads: the main thread only (the launchers' own aside).

#include "app/launch/job_launcher.h"
#include "app/metrics/metrics_store.h"

#include "slurm_fixture.h"

#include <nlohmann/json.hpp>

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

using namespace strata;
using Json = nlohmann::ordered_json;

namespace {

double now() { return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0; }

double quantile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[size_t(q * double(v.size() - 1) + 0.5)];
}

Json experiment(int epochs, bool slurm, int port, int nodes, int tasksPerNode)
{
    Json e = Json::parse(R"({
      "strata": 1, "name": "tiny", "seed": 5,
      "strategy": {"type": "MultiWorkerMirrored", "timeout_seconds": 20},
      "model": {"input_shape": [8], "layers": [{"type": "Dense", "units": 16, "activation": "relu"}, {"type": "Dense", "units": 3}]},
      "data": {"source": {"type": "synthetic", "task": "classification", "samples": 600, "test_samples": 150,
                          "features": 8, "classes": 3}, "validation": "none"},
      "training": {"batch_size": 16, "loss": {"type": "sparse_categorical_crossentropy", "from_logits": true},
                   "metrics": ["accuracy"], "optimizer": {"type": "adam", "learning_rate": 0.01}, "threads": 1}
    })");
    e["training"]["epochs"] = epochs;
    if (slurm)
        e["cluster"] = {{"slurm", {{"partition", "debug"}, {"nodes", nodes}, {"tasks_per_node", tasksPerNode}, {"port_base", port}}}};
    else
        e["cluster"] = {{"nodes", {{{"name", "local"}, {"host", "127.0.0.1"}}}},
                        {"tasks", {{{"type", "worker"}, {"node", "local"}, {"count", nodes * tasksPerNode}, {"port", port}}}}};
    return e;
}

struct Round {
    double firstStep = 0;              // seconds from start() to every worker's first step in the store
    double sbatch = 0, queue = 0;      // Slurm: start -> job id; -> the slowest task's supervisor
    std::vector<double> delays;        // seconds, every step event
};

// Runs one job to its end, measuring.
Round runJob(const Json& job, const QString& runDir, const QString& engine, bool slurm, int workers)
{
    Round r;
    app::MetricsStore store;
    app::JobLauncher launcher(&store);
    bool finished = false;
    QObject::connect(&launcher, &app::JobLauncher::finished, [&] { finished = true; });
    std::map<QString, std::map<int64_t, double>> arrived; // task -> step -> when it was in the store
    const double t0 = now();
    QString error;
    if (!launcher.start(job, engine, runDir, &error)) {
        std::fprintf(stderr, "strata-bench-slurm: %s\n", qPrintable(error));
        return r;
    }
    double jobIdAt = 0;
    while (!finished) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
        QThread::usleep(500);
        const double t = now();
        if (slurm && jobIdAt == 0 && QFile::exists(QDir(runDir).filePath("slurm-job.json")))
            jobIdAt = t;
        store.read([&](const std::vector<app::TaskData>& tasks, const std::vector<app::LogEntry>&) {
            for (const app::TaskData& td : tasks)
                if (td.step > 0 && !arrived[td.task].count(td.step))
                    arrived[td.task][td.step] = t;
        });
        if (r.firstStep == 0 && int(arrived.size()) == workers &&
            std::all_of(arrived.begin(), arrived.end(), [](const auto& a) { return !a.second.empty(); }))
            r.firstStep = t - t0;
        if (t - t0 > 600)
            break;
    }
    // The events' own times, from the files, against when each step was in the store.
    for (const auto& [task, steps] : arrived) {
        QFile events(QDir(runDir).filePath("events-" + QString(task).replace(':', '-') + ".jsonl"));
        if (!events.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray& line : events.readAll().split('\n')) {
            const Json e = Json::parse(line.toStdString(), nullptr, false);
            if (!e.is_object() || e.value("type", "") != "step")
                continue;
            const auto at = steps.find(e.value("step", int64_t(0)));
            // Steady state: the events written once the task was followed (the catch-up of
            // what it wrote before is the first step's latency, above).
            if (at != steps.end() && e.value("t", 0.0) >= steps.begin()->second)
                r.delays.push_back(at->second - e.value("t", 0.0));
        }
        if (slurm) {
            QFile record(QDir(runDir).filePath("task-" + QString(task).replace(':', '-') + ".json"));
            if (record.open(QIODevice::ReadOnly)) {
                const Json rec = Json::parse(record.readAll().toStdString(), nullptr, false);
                if (rec.is_object())
                    r.queue = std::max(r.queue, rec.value("started", 0.0) - jobIdAt);
            }
        }
    }
    r.sbatch = jobIdAt > 0 ? jobIdAt - t0 : 0;
    return r;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({"rounds", "Measured rounds (after one warm-up).", "N", "5"});
    parser.addOption({"epochs", "Epochs of each job (19 steps each).", "E", "200"});
    parser.addOption({"nodes", "slurmd nodes of the cluster, and of the job.", "N", "2"});
    parser.addOption({"tasks-per-node", "Workers of the job on each node.", "T", "1"});
    parser.addOption({"json", "Also write the figures to FILE.", "FILE"});
    parser.process(app);
    const int rounds = parser.value("rounds").toInt();
    const int epochs = parser.value("epochs").toInt();
    const int nodes = std::max(1, parser.value("nodes").toInt());
    const int tasksPerNode = std::max(1, parser.value("tasks-per-node").toInt());
    const int workers = nodes * tasksPerNode;
    if (const QString why = slurmtest::SlurmCluster::skipReason(); !why.isEmpty()) {
        std::printf("strata-bench-slurm: nothing measured: %s\n", qPrintable(why));
        return 0;
    }
    slurmtest::SlurmClusterOptions options;
    options.nodes = nodes;
    options.cpusPerNode = std::max(2, tasksPerNode);
    slurmtest::SlurmCluster cluster(options);
    if (!cluster.isReady() || !cluster.waitForNodesIdle()) {
        std::fprintf(stderr, "strata-bench-slurm: Slurm did not start: %s\n", qPrintable(cluster.error()));
        return 1;
    }
    slurmtest::NodeNames names(cluster);
    qputenv("SLURM_CONF", cluster.confPath().toUtf8());
    QTemporaryDir dir;
    const QString engine = QStringLiteral(STRATA_ENGINE_PATH);

    std::map<bool, std::vector<Round>> measured;
    int run = 0;
    for (int round = 0; round <= rounds; ++round) {
        for (const bool slurm : round % 2 == 0 ? std::vector<bool>{true, false} : std::vector<bool>{false, true}) {
            const Round r = runJob(experiment(epochs, slurm, testing::freePorts(workers), nodes, tasksPerNode),
                                   dir.filePath(QString("run-%1").arg(++run)), engine, slurm, workers);
            if (round > 0) // the first round warms up
                measured[slurm].push_back(r);
        }
    }
    const auto median = [&](bool slurm, auto field) {
        std::vector<double> v;
        for (const Round& r : measured[slurm])
            v.push_back(field(r));
        return quantile(v, 0.5);
    };
    const auto delays = [&](bool slurm, double q) {
        std::vector<double> all;
        for (const Round& r : measured[slurm])
            all.insert(all.end(), r.delays.begin(), r.delays.end());
        return quantile(all, q) * 1000;
    };
    const double slurmFirst = median(true, [](const Round& r) { return r.firstStep; });
    const double localFirst = median(false, [](const Round& r) { return r.firstStep; });
    std::printf("Submit to first step (MultiWorkerMirrored, %d workers; medians of %d rounds)\n", workers, rounds);
    std::printf("| run | first step (s) | sbatch (s) | queue (s) | ratio to local |\n|---|---|---|---|---|\n");
    std::printf("| Slurm, %d nodes | %.2f | %.2f | %.2f | %.2f |\n", nodes, slurmFirst, median(true, [](const Round& r) { return r.sbatch; }),
                median(true, [](const Round& r) { return r.queue; }), slurmFirst / localFirst);
    std::printf("| this machine | %.2f | | | 1.00 |\n\n", localFirst);
    const auto events = [&](bool slurm) {
        size_t n = 0;
        for (const Round& r : measured[slurm])
            n += r.delays.size();
        return n;
    };
    std::printf("Events' delay (step event written -> in the store, once followed), ms\n| run | events | median | p95 |\n|---|---|---|---|\n");
    std::printf("| Slurm (shared run directory) | %zu | %.1f | %.1f |\n", events(true), delays(true, 0.5), delays(true, 0.95));
    std::printf("| this machine | %zu | %.1f | %.1f |\n", events(false), delays(false, 0.5), delays(false, 0.95));
    if (parser.isSet("json")) {
        const Json out{{"rounds", rounds}, {"nodes", nodes}, {"workers", workers},
                       {"slurm", {{"first_step_s", slurmFirst}, {"delay_ms_median", delays(true, 0.5)}, {"delay_ms_p95", delays(true, 0.95)}}},
                       {"local", {{"first_step_s", localFirst}, {"delay_ms_median", delays(false, 0.5)}, {"delay_ms_p95", delays(false, 0.95)}}}};
        QFile f(parser.value("json"));
        if (f.open(QIODevice::WriteOnly))
            f.write(QByteArray::fromStdString(out.dump(2) + "\n"));
    }
    return 0;
}
