#include "strata/training/trainer.h"

#include "training_loop.h"
#include "strata/core/error.h"
#include "strata/data/pipeline.h"
#include "strata/distribute/process_group.h"
#include "strata/rundir/checkpoint.h"
#include "strata/report/device_event.h"
#include "strata/training/epoch_totals.h"
#include "strata/training/session.h"
#include "strata/core/host_info.h"
#include "strata/rundir/model_state.h"
#include "strata/report/step_trace.h"
#include "strata/report/step_window.h"
#include "strata/tensor/gpu.h"
#include "strata/schema/events.h"
#include "strata/tensor/blas.h"

#include <chrono>
#include <optional>

namespace strata::run {

namespace {

using Clock = std::chrono::steady_clock;


double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

} // namespace

struct Trainer::State : TrainingLoop {
    Session session;
    std::vector<int64_t> trainIndices, validationIndices;
    std::unique_ptr<data::Pipeline> pipeline;
    std::unique_ptr<StepTracer> tracer; // null: steps without timelines

    // Position: the next step to run.
    int64_t step = 0, epoch = 0, stepInEpoch = 0, streamBatch = 0;

    using TrainingLoop::TrainingLoop;

    void setup();
    void resume();
    void fit();
    // The step just taken (its position already advanced) into the step records and the
    // window of the next `step` event; returns the running metrics.
    // `stepStart`: when the step began (its timeline's t0).
    nlohmann::ordered_json recordStep(const distribute::StepOutcome& r, Clock::time_point stepStart, double computeMs,
                                      double inputMs, StepWindow& window);
    SpanRecorder* spans() { return tracer ? tracer->recorder() : nullptr; }
    void endEpoch(double seconds);
    void saveCheckpoint();
    void emitDeviceEvent(Clock::time_point since, const std::vector<double>& cpuSince);
    nlohmann::ordered_json run();
    // The job's process group (multi-worker), else null; only the chief writes the run's files.
    distribute::ProcessGroup* group() const { return session.strategy->processGroup(); }
    bool writesFiles() const { return !group() || group()->rank() == 0; }
    std::optional<Checkpoint> latestCheckpoint();
};

void Trainer::State::setup()
{
    const auto& t = experiment.training;
    session = Session::open(experiment, options.task);
    metrics = session.createMetrics();
    const auto& data = session.data;

    auto split = session.split();
    trainIndices = std::move(split.train);
    validationIndices = std::move(split.validation);

    data::PipelineOptions po;
    po.batchSize = session.strategy->globalBatchSize(t.batchSize);
    po.shuffle = experiment.data.shuffle;
    po.seed = experiment.seed;
    po.prefetch = experiment.data.prefetch;
    if (const distribute::ProcessGroup* g = group())
        po.shard = {data::shardPolicyFromName(experiment.data.shardPolicy), g->size(), g->rank()};
    pipeline = std::make_unique<data::Pipeline>(data.train, trainIndices, po);
    stepsPerEpoch = t.stepsPerEpoch > 0 ? t.stepsPerEpoch : pipeline->batchesPerEpoch();
    fingerprint.emplace(experiment, session.strategy->totalReplicaCount());
    if (options.traceSteps) {
        tracer = std::make_unique<StepTracer>();
        session.strategy->setSpanRecorder(tracer->recorder());
    }
}

std::optional<Checkpoint> Trainer::State::latestCheckpoint()
{
    std::optional<Checkpoint> checkpoint;
    bool initialized = false; // from a weights file (training.initial_weights, --weights-only)
    if (writesFiles()) {
        StartingPoint start = startTraining(runDir, options.resume, *fingerprint, experiment, session.model(),
                                            session.strategy->optimizer(),
                                            [this](const std::string& level, const std::string& message) { log(level, message); });
        checkpoint = std::move(start.resumed);
        initialized = start.weightsLoaded;
    }
    if (distribute::ProcessGroup* g = group()) {
        // The chief's position to every worker; its variables follow in synchronize().
        std::string header;
        if (checkpoint)
            header = nlohmann::ordered_json{{"step", checkpoint->step},
                                            {"epoch", checkpoint->epoch},
                                            {"step_in_epoch", checkpoint->stepInEpoch},
                                            {"stream_batch", checkpoint->streamBatch},
                                            {"extra", checkpoint->extra}}.dump();
        g->broadcast(header, 0);
        session.strategy->synchronize();
        if (!header.empty() && !checkpoint) {
            const auto j = nlohmann::ordered_json::parse(header);
            checkpoint.emplace();
            checkpoint->step = j["step"].get<int64_t>();
            checkpoint->epoch = j["epoch"].get<int64_t>();
            checkpoint->stepInEpoch = j["step_in_epoch"].get<int64_t>();
            checkpoint->streamBatch = j["stream_batch"].get<int64_t>();
            checkpoint->extra = j["extra"];
        }
    } else if (checkpoint || initialized) {
        session.strategy->synchronize();
    }
    // Every task (a worker has the chief's header): the loss scale goes on where it was.
    nn::LossScale* ls = session.strategy->lossScale();
    if (checkpoint && ls && checkpoint->extra.contains("loss_scale")) {
        const auto& j = checkpoint->extra["loss_scale"];
        ls->restore(j.value("factor", ls->factor()), j.value("clean_steps", int64_t{0}));
    }
    return checkpoint;
}

void Trainer::State::resume()
{
    auto checkpoint = latestCheckpoint();
    if (!checkpoint)
        return;
    step = checkpoint->step;
    epoch = checkpoint->epoch;
    stepInEpoch = checkpoint->stepInEpoch;
    streamBatch = checkpoint->streamBatch;
    lastCheckpointStep = step;
    epochTotals.read(*checkpoint, metrics);
    log("info", "resumed from checkpoint at step " + std::to_string(step) + " (epoch " + std::to_string(epoch + 1) +
                    ", step " + std::to_string(stepInEpoch) + " of " + std::to_string(stepsPerEpoch) + ")");
}

void Trainer::State::emitDeviceEvent(Clock::time_point since, const std::vector<double>& cpuSince)
{
    const double wall = std::chrono::duration<double>(Clock::now() - since).count();
    events.emit(schema::event::kDevice, deviceEventFields(*session.strategy, step, wall, cpuSince));
}

void Trainer::State::saveCheckpoint()
{
    const SpanScope span(spans(), TraceLane::Step, "checkpoint");
    lastCheckpointStep = step;
    if (!writesFiles())
        return;
    Checkpoint c;
    c.step = step;
    c.epoch = epoch;
    c.stepInEpoch = stepInEpoch;
    c.streamBatch = streamBatch;
    TrainingLoop::saveCheckpoint(c, session.model(), session.strategy->optimizer(), session.strategy->lossScale());
}

nlohmann::ordered_json Trainer::State::recordStep(const distribute::StepOutcome& r, Clock::time_point stepStart,
                                                  double computeMs, double inputMs, StepWindow& window)
{
    const double stepMs = msSince(stepStart);
    StepSample sample;
    sample.step = step;
    sample.epoch = epoch;
    sample.loss = r.loss();
    for (const auto& replica : r.replicas)
        sample.replicas.push_back({replica.device, replica.loss, replica.samples});
    sample.stepMs = stepMs;
    sample.computeMs = computeMs - r.commMs;
    sample.commMs = r.commMs;
    sample.inputMs = inputMs;
    sample.learningRate = session.strategy->optimizer().learningRate();
    nlohmann::ordered_json running = runningMetrics();
    events.record(StepWindow::record(sample, running),
                  tracer ? std::string_view(tracer->take(stepStart, group() ? group()->clockOffsetUs() : 0))
                         : std::string_view());
    window.add(sample);
    return running;
}

void Trainer::State::fit()
{
    const auto& t = experiment.training;
    StepWindow window;
    auto lastEmit = Clock::now();
    auto epochStart = Clock::now();
    distribute::Strategy& strategy = *session.strategy;
    auto lastDeviceEvent = Clock::now();
    auto cpuAtLastDeviceEvent = strategy.replicaCpuSeconds();
    pipeline->seek(streamBatch);

    while (epoch < t.epochs) {
        if (stepInEpoch == 0)
            resetEpoch();
        if (options.progress)
            options.progress->startEpoch(epoch, t.epochs, stepsPerEpoch, stepInEpoch);
        epochStart = Clock::now();
        while (stepInEpoch < stepsPerEpoch) {
            // A multi-worker job decides together, at the end of a step (StepOutcome::stop).
            const bool stop = stopRequested();
            if (stop && !group())
                return;
            const auto stepStart = Clock::now();
            SpanScope stepSpan(spans(), TraceLane::Step, "step");
            SpanScope inputSpan(spans(), TraceLane::Step, "input");
            const data::Batch batch = pipeline->next();
            inputSpan.end();
            const double inputMs = msSince(stepStart);
            const auto computeStart = Clock::now();
            const nn::ForwardContext ctx{true, experiment.seed, step};
            const distribute::StepOutcome r =
                strategy.step(batch.x, session.targets->encode(batch.y), {batch.globalSize, stop}, ctx, metrics);
            const double computeMs = msSince(computeStart);
            stepSpan.end();
            const double lossValue = r.loss();
            checkLossFinite(lossValue, step + 1,
                            " (epoch " + std::to_string(epoch + 1) + ", batch " + std::to_string(stepInEpoch + 1) +
                                " of " + std::to_string(stepsPerEpoch) + ")");
            ++step;
            ++stepInEpoch;
            ++streamBatch;
            epochTotals.lossSum += r.lossSum + r.regularization * static_cast<double>(r.samples);
            epochTotals.samples += r.samples;
            const nlohmann::ordered_json running = recordStep(r, stepStart, computeMs, inputMs, window);

            const bool epochEnds = stepInEpoch == stepsPerEpoch;
            if (epochEnds || std::chrono::duration<double>(Clock::now() - lastEmit).count() >= options.eventIntervalSeconds) {
                events.emit(schema::event::kStep, window.take(running));
                lastEmit = Clock::now();
            }
            if (std::chrono::duration<double>(Clock::now() - lastDeviceEvent).count() >= options.deviceIntervalSeconds) {
                emitDeviceEvent(lastDeviceEvent, cpuAtLastDeviceEvent);
                lastDeviceEvent = Clock::now();
                cpuAtLastDeviceEvent = strategy.replicaCpuSeconds();
            }
            if (options.progress)
                options.progress->update(stepInEpoch, epochMetrics());
            if (t.checkpoint.enabled && t.checkpoint.everySteps > 0 && step % t.checkpoint.everySteps == 0 && !epochEnds)
                saveCheckpoint();
            if (r.stop)
                return;
        }
        endEpoch(std::chrono::duration<double>(Clock::now() - epochStart).count());
    }
}

void Trainer::State::endEpoch(double seconds)
{
    std::function<Evaluation()> validate;
    if (!validationIndices.empty())
        validate = [this] {
            const SpanScope span(spans(), TraceLane::Step, "evaluation");
            return session.evaluate(session.validationSet(), validationIndices);
        };
    reportEpoch(epoch, step, seconds, validate);
    ++epoch;
    stepInEpoch = 0;
    if (checkpointDueAtEpochEnd(epoch, step))
        saveCheckpoint();
}

Trainer::Trainer(schema::Experiment experiment, const RunDirectory& runDir, EventSink& events, TrainerOptions options)
    : m_state(std::make_unique<State>(std::move(experiment), runDir, events, options))
{
}

Trainer::~Trainer() = default;

nlohmann::ordered_json Trainer::run()
{
    State& s = *m_state;
    try {
        return s.run();
    } catch (const distribute::CollectiveError&) {
        // Stopping because another task was lost: leaving on purpose, not lost ourselves.
        if (s.session.strategy && s.group())
            s.group()->leave();
        throw;
    } catch (const std::exception& e) {
        if (s.session.strategy && s.group())
            s.group()->leave(e.what());
        throw;
    }
}

nlohmann::ordered_json Trainer::State::run()
{
    State& s = *this;
    const auto started = Clock::now();
    s.setup();
    s.resume();
    const int64_t resumedFrom = s.step;
    const auto& t = s.experiment.training;
    nn::Sequential& model = s.session.model();
    s.reporter.openRun(s.runDir, s.experiment, model, s.writesFiles());
    const distribute::Strategy& strategy = *s.session.strategy;
    schema::StartEvent start = s.startEvent(model, static_cast<int64_t>(s.trainIndices.size()),
                                          static_cast<int64_t>(s.validationIndices.size()),
                                          s.session.data.test ? s.session.data.test->size() : 0, resumedFrom);
    start.strategy = strategy.name();
    start.replicas = strategy.totalReplicaCount();
    start.taskReplicas = strategy.replicaCount();
    start.workers = s.group() ? s.group()->size() : 1;
    start.batchSize = strategy.globalBatchSize(t.batchSize);
    s.reporter.start(start);

    s.events.emit(schema::event::kPlacement, schema::toJson(s.session.strategy->placement()));
    s.fit();
    const bool stopped = s.epoch < t.epochs;
    if (t.checkpoint.enabled && s.lastCheckpointStep != s.step)
        s.saveCheckpoint();

    if (s.writesFiles()) {
        writeWeights(model, s.step, s.runDir.file("model.weights"));
    }

    const nlohmann::ordered_json done =
        s.session.doneFields({stopped, s.step, s.epoch, s.lastTrain, s.lastValidation}, s.runDir.path(), started);
    if (distribute::ProcessGroup* g = s.group()) {
        // Nobody leaves while another still needs it (the chief hosts the rendezvous).
        g->leaveTogether();
    }
    s.events.emit(schema::event::kDone, done);
    return done;
}

} // namespace strata::run
