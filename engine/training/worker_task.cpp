// A ParameterServer worker: runs the steps the coordinator gives it.

#include "ps/coordinator_watch.h"
#include "ps/messages.h"
#include "ps/parameter_server_strategy.h"
#include "strata/core/clock_offset.h"
#include "strata/data/pipeline.h"
#include "strata/report/step_trace.h"
#include "strata/report/device_event.h"
#include "strata/training/parameter_server_tasks.h"
#include "strata/training/session.h"
#include "strata/report/step_window.h"
#include "strata/schema/events.h"

#include <unistd.h>

#include <atomic>
#include <thread>

namespace strata::ps {

using namespace strata::run;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// Tells the coordinator this worker is alive, on a socket of its own, while the worker's
// thread computes. Each heartbeat gives this worker's time and the coordinator's "clock" reply
// its own: the first few in quick succession, so that the first step's timeline already has
// this clock's offset to the job's (ClockOffset: the shortest round trip's).
class Heartbeat {
public:
    Heartbeat(ps::ParameterServerStrategy& s, std::string task, std::string identity)
        : m_thread([this, &s, task = std::move(task), identity = std::move(identity)] {
              ps::Client client(s.context(), s.keys(), ps::JobLayout::endpoint(s.layout().chief), "chief:0",
                                identity + "/heartbeat");
              const auto interval = std::max(std::chrono::milliseconds(50), s.layout().timeout / 6);
              size_t quick = ClockOffset::kSamples / 2;
              while (!m_stop.load()) {
                  const auto sent = Clock::now();
                  const int64_t sentUs = systemMicroseconds();
                  client.send(ps::Message{
                      ps::headerOf(ps::WorkerMessage{.op = "heartbeat", .task = task, .pid = getpid(), .sentUs = sentUs}), {}});
                  awaitClock(client, sentUs, sent + interval);
                  if (quick > 0 && m_clock.roundTripUs() >= 0) {
                      --quick;
                      continue;
                  }
                  std::unique_lock lock(m_mutex);
                  m_wake.wait_until(lock, sent + interval, [&] { return m_stop.load(); });
              }
          })
    {
    }
    // Microseconds to add to this worker's clock to read the coordinator's.
    int64_t clockOffsetUs() const { return m_clock.offsetUs(); }
    ~Heartbeat()
    {
        m_stop = true;
        m_wake.notify_all();
        m_thread.join();
    }

private:
    // The coordinator's reply to the heartbeat sent at `sentUs`, until `deadline` (a reply to an
    // earlier one that came late is skipped).
    void awaitClock(ps::Client& client, int64_t sentUs, Clock::time_point deadline)
    {
        while (!m_stop.load() && Clock::now() < deadline) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            std::optional<ps::Message> reply;
            try {
                reply = client.receive(std::min(left, std::chrono::milliseconds(100)));
            } catch (const distribute::CollectiveError&) {
                return; // a garbled reply: the next heartbeat samples again
            }
            if (!reply)
                continue;
            const int64_t receivedUs = systemMicroseconds();
            try {
                const ps::StepOrder clock = ps::readStepOrder(reply->header);
                if (clock.op == "clock" && clock.sentUs == sentUs) {
                    m_clock.add(sentUs, clock.chiefUs, receivedUs);
                    return;
                }
            } catch (const distribute::CollectiveError&) {
            }
        }
    }

    ClockOffset m_clock;
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::thread m_thread;
};

// The batches of the shuffled stream, each step's named by the coordinator.
data::Pipeline workerPipeline(const Session& session)
{
    const schema::Experiment& experiment = session.experiment;
    data::PipelineOptions po;
    po.batchSize = experiment.training.batchSize;
    po.shuffle = experiment.data.shuffle;
    po.seed = experiment.seed;
    po.prefetch = 0; // the coordinator says which batch each step takes
    return data::Pipeline(session.data.train, session.split().train, po);
}

// Step `step`'s result for the coordinator: its totals (the metrics' own, reset before the
// step), times and the staleness of its push.
ps::StepResult resultOf(int64_t step, const distribute::StepOutcome& r, const ps::PushResult& push, double stepMs,
                        const std::vector<std::unique_ptr<nn::Metric>>& metrics)
{
    ps::StepResult result{.step = step,
                          .samples = r.samples,
                          .lossSum = r.lossSum,
                          .regularization = r.regularization,
                          .stalenessMean = push.stalenessMean,
                          .stalenessMax = push.stalenessMax,
                          .stepMs = stepMs,
                          .computeMs = r.computeMs - r.commMs,
                          .commMs = r.commMs};
    for (const auto& m : metrics)
        result.metrics.emplace_back(m->total(), m->count());
    return result;
}

// What a worker reports of the steps it ran: its step records, its windowed `step` events
// (with the last global step and the staleness of its pushes) and its `device` events.
class WorkerReport {
public:
    WorkerReport(EventSink& events, const TrainerOptions& options, ps::ParameterServerStrategy& strategy)
        : m_events(events), m_options(options), m_strategy(strategy), m_cpuAtLastDeviceEvent(strategy.replicaCpuSeconds())
    {
    }

    // `sample` ran global step `globalStep` (counted from 1) and pushed with `push`'s staleness;
    // `trace`: its timeline (StepTracer::take; empty: none).
    void add(const StepSample& sample, int64_t globalStep, const ps::PushResult& push, std::string_view trace)
    {
        m_lastGlobal = globalStep;
        m_stalenessSum += push.stalenessMean;
        m_stalenessMax = std::max(m_stalenessMax, push.stalenessMax);
        ++m_windowSteps;
        auto record = StepWindow::record(sample);
        record["global_step"] = m_lastGlobal;
        record["staleness_mean"] = push.stalenessMean;
        record["staleness_max"] = push.stalenessMax;
        m_events.record(std::move(record), trace);
        m_window.add(sample);
        if (std::chrono::duration<double>(Clock::now() - m_lastEmit).count() >= m_options.eventIntervalSeconds) {
            auto fields = m_window.take(nlohmann::ordered_json::object());
            fields["global_step"] = m_lastGlobal;
            fields["staleness_mean"] = m_stalenessSum / static_cast<double>(m_windowSteps);
            fields["staleness_max"] = m_stalenessMax;
            m_events.emit(schema::event::kStep, fields);
            m_stalenessSum = 0;
            m_stalenessMax = 0;
            m_windowSteps = 0;
            m_lastEmit = Clock::now();
        }
        if (const double wall = std::chrono::duration<double>(Clock::now() - m_lastDeviceEvent).count();
            wall >= m_options.deviceIntervalSeconds) {
            m_events.emit(schema::event::kDevice, deviceEventFields(m_strategy, sample.step, wall, m_cpuAtLastDeviceEvent));
            m_lastDeviceEvent = Clock::now();
            m_cpuAtLastDeviceEvent = m_strategy.replicaCpuSeconds();
        }
    }

private:
    EventSink& m_events;
    const TrainerOptions& m_options;
    ps::ParameterServerStrategy& m_strategy;
    StepWindow m_window;
    Clock::time_point m_lastEmit = Clock::now(), m_lastDeviceEvent = Clock::now();
    std::vector<double> m_cpuAtLastDeviceEvent;
    int64_t m_lastGlobal = 0, m_stalenessMax = 0, m_windowSteps = 0;
    double m_stalenessSum = 0;
};

} // namespace

nlohmann::ordered_json runParameterServerWorker(const schema::Experiment& experiment, EventSink& events,
                                                const TrainerOptions& options)
{
    const auto started = Clock::now();
    Session session = Session::open(experiment, options.task);
    auto& strategy = static_cast<ps::ParameterServerStrategy&>(*session.strategy);
    data::Pipeline pipeline = workerPipeline(session);

    const std::string& task = options.task.task;
    const std::string identity = ps::workerIdentity(task, getpid());
    ps::Client coordinator(strategy.context(), strategy.keys(), ps::JobLayout::endpoint(strategy.layout().chief),
                           "chief:0", identity);
    events.emit(schema::event::kPlacement, schema::toJson(strategy.workerPlacement()));
    coordinator.send(ps::Message{ps::headerOf(ps::WorkerMessage{.op = "hello", .task = task, .pid = getpid()}), {}});
    Heartbeat heartbeat(strategy, task, identity);
    std::unique_ptr<StepTracer> tracer = options.traceSteps ? std::make_unique<StepTracer>() : nullptr;
    SpanRecorder* spans = tracer ? tracer->recorder() : nullptr;
    strategy.setSpanRecorder(spans);

    ps::CoordinatorWatch watch(strategy.layout());
    auto metrics = session.createMetrics();
    WorkerReport report(events, options, strategy);
    int64_t steps = 0, epoch = 0;
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
        epoch = order.epoch;
        const auto stepStart = Clock::now();
        SpanScope stepSpan(spans, TraceLane::Step, "step");
        SpanScope inputSpan(spans, TraceLane::Step, "input");
        pipeline.seek(order.batch);
        const data::Batch batch = pipeline.next();
        inputSpan.end();
        const double inputMs = msSince(stepStart);
        for (auto& m : metrics)
            m->reset(); // the step's own totals go to the coordinator
        const nn::ForwardContext ctx{true, experiment.seed, step};
        const distribute::StepOutcome r = strategy.step(batch.x, session.targets->encode(batch.y), ctx, metrics);
        stepSpan.end();
        const auto& push = strategy.lastPush();
        const ps::StepResult result = resultOf(step, r, push, msSince(stepStart), metrics);
        coordinator.send(ps::Message{ps::resultHeader({.op = "result", .task = task, .run = order.run}, result), {}});
        ++steps;
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
        report.add(sample, step + 1, push,
                   tracer ? std::string_view(tracer->take(stepStart, heartbeat.clockOffsetUs())) : std::string_view());
    }
    nlohmann::ordered_json done{{"status", status},
                                {"steps", steps},
                                {"epochs", epoch},
                                {"wall_seconds", std::chrono::duration<double>(Clock::now() - started).count()}};
    events.emit(schema::event::kDone, done);
    return done;
}

} // namespace strata::ps
