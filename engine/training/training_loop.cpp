#include "training_loop.h"

#include "strata/rundir/model_state.h"

namespace strata::run {

namespace {

schema::MetricValues valuesOf(const Evaluation& e)
{
    schema::MetricValues values{{"loss", e.loss}};
    for (const auto& [name, value] : e.metrics)
        values.emplace_back(name, value);
    return values;
}

} // namespace

TrainingLoop::TrainingLoop(schema::Experiment e, const RunDirectory& dir, EventSink& sink, TrainerOptions o)
    : experiment(std::move(e)), runDir(dir), events(sink), options(o), reporter(sink, o.progress),
      checkpoints(dir.checkpointDir())
{
}

schema::MetricValues TrainingLoop::epochMetrics() const
{
    schema::MetricValues values{{"loss", epochTotals.meanLoss()}};
    for (const auto& m : metrics)
        values.emplace_back(m->name(), m->result());
    return values;
}

nlohmann::ordered_json TrainingLoop::runningMetrics() const
{
    nlohmann::ordered_json running = nlohmann::ordered_json::object();
    for (const auto& m : metrics)
        running[m->name()] = m->result();
    return running;
}

void TrainingLoop::resetEpoch()
{
    epochTotals.lossSum = 0;
    epochTotals.samples = 0;
    for (auto& m : metrics)
        m->reset();
}

schema::StartEvent TrainingLoop::startEvent(const nn::Sequential& model, int64_t trainExamples,
                                          int64_t validationExamples, int64_t testExamples, int64_t resumedFrom) const
{
    const auto& t = experiment.training;
    schema::StartEvent e;
    e.experiment = experiment.name;
    e.runDir = runDir.path();
    e.epochs = t.epochs;
    e.stepsPerEpoch = stepsPerEpoch;
    e.totalSteps = t.epochs * stepsPerEpoch;
    e.perReplicaBatchSize = t.batchSize;
    e.params = model.parameterCount();
    e.trainExamples = trainExamples;
    e.validationExamples = validationExamples;
    e.testExamples = testExamples;
    if (resumedFrom > 0)
        e.resumedFromStep = resumedFrom;
    return e;
}

void TrainingLoop::reportEpoch(int64_t epoch, int64_t step, double seconds, const std::function<Evaluation()>& validate)
{
    schema::EpochEvent e;
    e.epoch = epoch;
    e.epochs = experiment.training.epochs;
    e.step = step;
    e.train = epochMetrics();
    lastTrain = schema::toJson(e.train);
    if (validate) {
        e.validation = valuesOf(validate());
        lastValidation = schema::toJson(*e.validation);
    }
    e.seconds = seconds;
    reporter.endEpoch(e, stepsPerEpoch);
}

bool TrainingLoop::checkpointDueAtEpochEnd(int64_t epochsDone, int64_t step) const
{
    const auto& c = experiment.training.checkpoint;
    return c.enabled && ((c.everyEpochs > 0 && epochsDone % c.everyEpochs == 0) ||
                         (c.everySteps > 0 && step % c.everySteps == 0));
}

void TrainingLoop::saveCheckpoint(Checkpoint c, const nn::Sequential& model, nn::Optimizer& optimizer,
                                  const nn::LossScale* lossScale)
{
    epochTotals.write(c, metrics);
    if (lossScale)
        c.extra["loss_scale"] = {{"factor", lossScale->factor()}, {"clean_steps", lossScale->cleanSteps()}};
    captureState(model, &optimizer, c);
    c.extra["fingerprint"] = fingerprint->get();
    events.emit(schema::event::kCheckpoint, saveCheckpointReported(checkpoints, c));
}

} // namespace strata::run
