// A ParameterServer ps task: holds its shards and serves pulls and pushes until the
// coordinator ends the job.

#include "ps/coordinator_watch.h"
#include "ps/shard_store.h"
#include "strata/tensor/blas.h"
#include "strata/training/parameter_server_tasks.h"
#include "strata/schema/cluster_spec.h"
#include "strata/schema/events.h"

namespace strata::ps {

using namespace strata::run;

namespace {

using Clock = std::chrono::steady_clock;

int psIndex(const ps::JobLayout& layout, const std::string& task)
{
    for (size_t i = 0; i < layout.ps.size(); ++i)
        if (layout.ps[i].name() == task)
            return static_cast<int>(i);
    throw ConfigError("cluster", "task " + task + " is not a ps task of this cluster");
}

} // namespace

nlohmann::ordered_json runParameterServer(const schema::Experiment& experiment, EventSink& events,
                                          const TrainerOptions& options)
{
    const auto started = Clock::now();
    // Updates are memory-bound and the workers on this machine need its cores: one thread
    // (OpenMP threads spinning between pushes took a quarter of the ps's throughput).
    blas::setThreads(1);
    const nn::Sequential model(experiment.model, experiment.seed);
    const ps::JobLayout layout = ps::JobLayout::of(experiment, model);
    const int index = psIndex(layout, options.task.task);
    ps::ShardStore store(experiment, layout, index);
    const ps::CurveKeys keys = ps::deriveCurveKeys(options.task.token);
    zmq::context_t context;
    ps::Server server(context, keys, ps::JobLayout::endpoint(layout.ps[static_cast<size_t>(index)]),
                      layout.maxFrameBytes());

    ps::CoordinatorWatch watch(layout);
    int64_t pulls = 0, refusedReported = 0, malformedReported = 0;
    auto lastEvent = Clock::now();
    int64_t bytesInBefore = 0, bytesOutBefore = 0, updatesBefore = 0;
    std::string status = "stopped";
    for (;;) {
        if (options.stopRequested && options.stopRequested->load())
            break;
        if (auto request = server.wait(std::chrono::milliseconds(200))) {
            ps::Served served = ps::serve(store, request->message);
            if (served.fromCoordinator)
                watch.heard();
            pulls += served.pulled ? 1 : 0;
            if (served.shutdown) {
                status = *served.shutdown;
                break;
            }
            server.send(request->peer, std::move(served.reply));
        }
        const auto now = Clock::now();
        if (server.refused() > refusedReported || server.malformed() > malformedReported) {
            events.emit(schema::event::kLog,
                        {{"level", "warning"},
                         {"message", "refused " + std::to_string(server.refused() - refusedReported) +
                                         " connection(s) without this job's keys and " +
                                         std::to_string(server.malformed() - malformedReported) +
                                         " malformed message(s) on " + server.endpoint() + "; training goes on"}});
            refusedReported = server.refused();
            malformedReported = server.malformed();
        }
        watch.check("this ps stops (relaunch the job to resume from its last checkpoint)");
        const double seconds = std::chrono::duration<double>(now - lastEvent).count();
        if (seconds >= 1.0) {
            events.emit(schema::event::kPs, {{"shards", store.shardCount()},
                                           {"variable_bytes", store.variableBytes()},
                                           {"bytes_in", server.bytesIn()},
                                           {"bytes_out", server.bytesOut()},
                                           {"bytes_in_per_s", static_cast<double>(server.bytesIn() - bytesInBefore) / seconds},
                                           {"bytes_out_per_s", static_cast<double>(server.bytesOut() - bytesOutBefore) / seconds},
                                           {"updates", store.updates()},
                                           {"updates_per_s", static_cast<double>(store.updates() - updatesBefore) / seconds},
                                           {"pulls", pulls},
                                           {"refused", server.refused() + server.malformed()}});
            bytesInBefore = server.bytesIn();
            bytesOutBefore = server.bytesOut();
            updatesBefore = store.updates();
            lastEvent = now;
        }
    }
    nlohmann::ordered_json done{{"status", status},
                                {"updates", store.updates()},
                                {"pulls", pulls},
                                {"refused", server.refused() + server.malformed()},
                                {"bytes_in", server.bytesIn()},
                                {"bytes_out", server.bytesOut()},
                                {"wall_seconds", std::chrono::duration<double>(Clock::now() - started).count()}};
    events.emit(schema::event::kDone, done);
    return done;
}

} // namespace strata::ps
