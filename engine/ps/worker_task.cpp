// A ParameterServer worker: runs the steps the coordinator gives it.

#include "ps/coordinator_watch.h"
#include "ps/messages.h"
#include "ps/parameter_server_strategy.h"
#include "strata/data/pipeline.h"
#include "strata/run/device_event.h"
#include "strata/ps/tasks.h"
#include "strata/run/session.h"
#include "strata/run/step_window.h"
#include "strata/spec/events.h"

#include <unistd.h>

#include <atomic>
#include <thread>

namespace strata::ps {

using namespace strata::run;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Tells the coordinator this worker is alive, on a socket of its own, while the worker's
// thread computes.
class Heartbeat {
public:
    Heartbeat(ps::ParameterServerStrategy& s, std::string task, std::string identity)
        : m_thread([this, &s, task = std::move(task), identity = std::move(identity)] {
              ps::Client client(s.context(), s.keys(), ps::JobLayout::endpoint(s.layout().chief), "chief:0",
                                identity + "/heartbeat");
              const auto interval = std::max(std::chrono::milliseconds(50), s.layout().timeout / 6);
              while (!m_stop.load()) {
                  client.send(ps::Message{{{"op", "heartbeat"}, {"task", task}, {"pid", getpid()}}, {}});
                  std::unique_lock lock(m_mutex);
                  m_wake.wait_for(lock, interval, [&] { return m_stop.load(); });
              }
          })
    {
    }
    ~Heartbeat()
    {
        m_stop = true;
        m_wake.notify_all();
        m_thread.join();
    }

private:
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::thread m_thread;
};

} // namespace

nlohmann::ordered_json runParameterServerWorker(const spec::Experiment& experiment, EventSink& events,
                                                const TrainerOptions& options)
{
    const auto started = Clock::now();
    Session session = Session::open(experiment, options.task);
    auto& strategy = static_cast<ps::ParameterServerStrategy&>(*session.strategy);
    const auto& t = experiment.training;
    data::PipelineOptions po;
    po.batchSize = t.batchSize;
    po.shuffle = experiment.data.shuffle;
    po.seed = experiment.seed;
    po.prefetch = 0; // the coordinator says which batch each step takes
    data::Pipeline pipeline(session.data.train, session.split().train, po);

    const std::string& task = options.task.task;
    const std::string identity = ps::workerIdentity(task, getpid());
    ps::Client coordinator(strategy.context(), strategy.keys(), ps::JobLayout::endpoint(strategy.layout().chief),
                           "chief:0", identity);
    events.emit(spec::event::kPlacement, strategy.workerPlacement());
    coordinator.send(ps::Message{{{"op", "hello"}, {"task", task}, {"pid", getpid()}}, {}});
    Heartbeat heartbeat(strategy, task, identity);

    ps::CoordinatorWatch watch(strategy.layout());
    auto metrics = session.createMetrics();
    StepWindow window;
    auto lastEmit = Clock::now();
    auto lastDeviceEvent = Clock::now();
    auto cpuAtLastDeviceEvent = strategy.replicaCpuSeconds();
    int64_t steps = 0, lastGlobal = 0, epoch = 0;
    double stalenessSum = 0;
    int64_t stalenessMax = 0, windowSteps = 0;
    std::string status = "stopped";
    for (;;) {
        if (options.stopRequested && options.stopRequested->load())
            break;
        auto message = coordinator.receive(std::chrono::milliseconds(200));
        if (!message) {
            watch.check("this worker stops");
            continue;
        }
        watch.heard();
        const ps::StepOrder order = ps::readStepOrder(message->header);
        if (order.op == "stop") {
            status = order.status;
            break;
        }
        if (order.op != "step")
            continue;
        const int64_t step = order.step;
        const int64_t batchIndex = order.batch;
        epoch = order.epoch;
        const auto stepStart = Clock::now();
        pipeline.seek(batchIndex);
        const data::Batch batch = pipeline.next();
        const double inputMs = msSince(stepStart);
        for (auto& m : metrics)
            m->reset(); // the step's own totals go to the coordinator
        const nn::ForwardContext ctx{true, experiment.seed, step};
        const dist::StepOutcome r = strategy.step(batch.x, session.targets->encode(batch.y), ctx, metrics);
        nlohmann::json totals = nlohmann::json::array();
        for (const auto& m : metrics)
            totals.push_back({m->total(), m->count()});
        const auto& push = strategy.lastPush();
        coordinator.send(ps::Message{{{"op", "result"},
                                      {"task", task},
                                      {"run", order.run},
                                      {"step", step},
                                      {"loss_sum", r.lossSum},
                                      {"regularization", r.regularization},
                                      {"samples", r.samples},
                                      {"metrics", totals},
                                      {"staleness_mean", push.stalenessMean},
                                      {"staleness_max", push.stalenessMax},
                                      {"step_ms", msSince(stepStart)},
                                      {"compute_ms", r.computeMs - r.commMs},
                                      {"comm_ms", r.commMs}},
                                     {}});
        ++steps;
        lastGlobal = step + 1;
        stalenessSum += push.stalenessMean;
        stalenessMax = std::max(stalenessMax, push.stalenessMax);
        ++windowSteps;
        StepSample sample;
        sample.step = steps;
        sample.epoch = epoch;
        sample.loss = r.loss();
        sample.replicas = {{task + "/cpu:0", r.loss(), r.samples}};
        sample.stepMs = msSince(stepStart);
        sample.computeMs = r.computeMs - r.commMs;
        sample.commMs = r.commMs;
        sample.inputMs = inputMs;
        sample.learningRate = strategy.optimizer().learningRate();
        auto record = StepWindow::record(sample);
        record["global_step"] = lastGlobal;
        record["staleness_mean"] = push.stalenessMean;
        record["staleness_max"] = push.stalenessMax;
        events.record(std::move(record));
        window.add(sample);
        if (std::chrono::duration<double>(Clock::now() - lastEmit).count() >= options.eventIntervalSeconds) {
            auto fields = window.take(nlohmann::ordered_json::object());
            fields["global_step"] = lastGlobal;
            fields["staleness_mean"] = stalenessSum / static_cast<double>(windowSteps);
            fields["staleness_max"] = stalenessMax;
            events.emit(spec::event::kStep, fields);
            stalenessSum = 0;
            stalenessMax = 0;
            windowSteps = 0;
            lastEmit = Clock::now();
        }
        if (const double wall = std::chrono::duration<double>(Clock::now() - lastDeviceEvent).count();
            wall >= options.deviceIntervalSeconds) {
            events.emit(spec::event::kDevice, deviceEventFields(strategy, steps, wall, cpuAtLastDeviceEvent));
            lastDeviceEvent = Clock::now();
            cpuAtLastDeviceEvent = strategy.replicaCpuSeconds();
        }
    }
    nlohmann::ordered_json done{{"status", status},
                                {"steps", steps},
                                {"epochs", epoch},
                                {"wall_seconds", std::chrono::duration<double>(Clock::now() - started).count()}};
    events.emit(spec::event::kDone, done);
    return done;
}

} // namespace strata::ps
