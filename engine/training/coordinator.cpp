// The coordinator of a ParameterServer job (the chief): schedules steps on workers, keeps
// the job's numbers, evaluates and checkpoints. See strata/training/parameter_server_tasks.h.

#include "ps/messages.h"
#include "ps/parameter_server_strategy.h"
#include "training/training_loop.h"
#include "strata/data/pipeline.h"
#include "strata/rundir/checkpoint.h"
#include "strata/training/epoch_totals.h"
#include "strata/core/clock_offset.h"
#include "strata/core/host_info.h"
#include "strata/core/seconds_text.h"
#include "strata/rundir/model_state.h"
#include "strata/training/parameter_server_tasks.h"
#include "strata/training/session.h"
#include "strata/report/step_window.h"
#include "strata/schema/events.h"

#include <unistd.h>

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>

namespace strata::ps {

using namespace strata::run;

namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Worker {
    std::string peer;    // routing id of its step socket
    int64_t pid = 0;
    bool live = false;
    std::optional<int64_t> running; // the step it was given
    int64_t clock = 0;   // steps it completed (stale-synchronous bound)
    int64_t steps = 0;
    Clock::time_point heard;
    // Since the last `step` event.
    int64_t windowSamples = 0, windowSteps = 0, windowStalenessMax = 0;
    double windowStaleness = 0;
};

class Coordinator : private TrainingLoop {
public:
    Coordinator(const schema::Experiment& e, const RunDirectory& dir, EventSink& sink, const TrainerOptions& o)
        : TrainingLoop(e, dir, sink, o)
    {
    }

    Json run();
    // Tells every task the job ends with `status` (no reply awaited).
    void endJob(const std::string& status);

private:
    ps::ParameterServerStrategy& strategy() { return static_cast<ps::ParameterServerStrategy&>(*m_session.strategy); }
    const ps::JobLayout& layout() { return strategy().layout(); }

    void resume();
    // Runs steps until `until` have completed (or a stop is asked for): every step given out
    // is finished before it returns.
    void runSteps(int64_t until);
    void awaitWorkers();
    void pump(std::chrono::milliseconds timeout);
    void handle(ps::Request& request);
    void complete(Worker& w, const ps::StepResult& result, const std::string& task);
    void checkLiveness();
    void schedule(int64_t until);
    bool mayRun(const Worker& w) const;
    void emitStep(bool force);
    void endEpoch(double seconds);
    void saveCheckpoint();

    Session m_session;
    std::unique_ptr<ps::Server> m_server;
    std::map<std::string, Worker> m_workers; // by task name
    std::vector<int64_t> m_validation;

    int64_t m_next = 0;      // the next new step to give out
    int64_t m_completed = 0; // steps completed (all steps below m_next once drained)
    std::set<int64_t> m_done;         // completed steps at or above m_completed's contiguous run
    std::deque<int64_t> m_rerun;      // steps lost with their worker
    int64_t m_epoch = 0;

    // This coordinator's run of the job (a relaunched coordinator has another).
    const std::string m_incarnation = std::to_string(getpid()) + "-" + std::to_string(Clock::now().time_since_epoch().count());
    StepWindow m_window;
    Clock::time_point m_lastEmit = Clock::now(), m_lastPing{};
};

void Coordinator::resume()
{
    // The ps tasks first: a refused resume (below) can then tell them that the job ends.
    strategy().client().waitForServers(strategy().client().layout().startupTimeout);
    fingerprint.emplace(experiment, strategy().totalReplicaCount());
    StartingPoint start = startTraining(runDir, options.resume, *fingerprint, experiment, strategy().model(),
                                        strategy().optimizer(),
                                        [this](const std::string& level, const std::string& message) { log(level, message); });
    auto& checkpoint = start.resumed;
    if (checkpoint) {
        m_next = m_completed = checkpoint->step;
        m_epoch = checkpoint->epoch;
        lastCheckpointStep = checkpoint->step;
        epochTotals.read(*checkpoint, metrics);
    }
    // The ps tasks start empty: they take the coordinator's variables (fresh or restored).
    strategy().synchronize();
    if (checkpoint)
        log("info", "resumed from checkpoint at step " + std::to_string(m_completed) + " (epoch " +
                        std::to_string(m_epoch + 1) + "); every ps holds its shards and slots again");
}

bool Coordinator::mayRun(const Worker& w) const
{
    const int64_t k = experiment.strategy.maxStaleness;
    if (k < 0)
        return true;
    int64_t slowest = w.clock;
    for (const auto& [name, other] : m_workers)
        if (other.live)
            slowest = std::min(slowest, other.clock);
    return w.clock - slowest <= k;
}

void Coordinator::schedule(int64_t until)
{
    if (stopRequested())
        return;
    for (auto& [name, w] : m_workers) {
        if (!w.live || w.running || !mayRun(w))
            continue;
        const bool rerun = !m_rerun.empty();
        if (!rerun && m_next >= until)
            return;
        const int64_t step = rerun ? m_rerun.front() : m_next;
        // Step s trains on batch s of the shuffled stream, wherever it runs. A worker whose step
        // socket is not connected yet (its heartbeat came first) gets it on a later round.
        const ps::StepOrder order{.op = "step", .step = step, .batch = step, .epoch = step / stepsPerEpoch,
                                  .run = m_incarnation};
        if (!m_server->send(w.peer, ps::Message{ps::headerOf(order), {}}))
            continue;
        if (rerun)
            m_rerun.pop_front();
        else
            ++m_next;
        w.running = step;
    }
}

void Coordinator::complete(Worker& w, const ps::StepResult& r, const std::string& task)
{
    const int64_t step = r.step;
    if (w.running == step) {
        w.running.reset();
        ++w.clock;
    }
    // A step runs at least once; only its first result counts.
    if (step < m_completed || m_done.count(step))
        return;
    std::erase(m_rerun, step);
    m_done.insert(step);
    while (m_done.count(m_completed)) {
        m_done.erase(m_completed);
        ++m_completed;
    }
    const int64_t samples = r.samples;
    const double lossSum = r.lossSum;
    const double regularization = r.regularization;
    const double loss = lossSum / static_cast<double>(std::max<int64_t>(samples, 1)) + regularization;
    checkLossFinite(loss, step + 1, " on " + task);
    epochTotals.lossSum += lossSum + regularization * static_cast<double>(samples);
    epochTotals.samples += samples;
    for (size_t i = 0; i < metrics.size() && i < r.metrics.size(); ++i)
        metrics[i]->restore(metrics[i]->total() + r.metrics[i].first, metrics[i]->count() + r.metrics[i].second);
    ++w.steps;
    ++w.windowSteps;
    w.windowSamples += samples;
    w.windowStaleness += r.stalenessMean;
    w.windowStalenessMax = std::max(w.windowStalenessMax, r.stalenessMax);

    StepSample sample;
    // Steps completed, each once, in the order their results came: one more with every result,
    // while m_completed (the contiguous run) waits for a straggler's step.
    sample.step = m_completed + static_cast<int64_t>(m_done.size());
    sample.epoch = step / stepsPerEpoch;
    sample.loss = loss;
    // Per-worker losses are the workers' own step events: a window of the coordinator mixes
    // workers, so its events carry the job's loss only.
    sample.stepMs = r.stepMs;
    sample.computeMs = r.computeMs;
    sample.commMs = r.commMs;
    sample.learningRate = strategy().optimizer().learningRate();
    auto record = StepWindow::record(sample, runningMetrics());
    record["samples"] = samples;
    record["ran_step"] = step + 1;
    record["worker"] = task;
    events.record(std::move(record));
    m_window.add(sample);
    if (options.progress)
        options.progress->update(m_completed - m_epoch * stepsPerEpoch, {{"loss", epochTotals.meanLoss()}});
}

void Coordinator::handle(ps::Request& request)
{
    // A peer with the job's keys whose message does not read (another version of Strata?) is
    // ignored, as a message from a task that is no worker of the cluster is.
    ps::WorkerMessage m;
    std::optional<ps::StepResult> result;
    try {
        m = ps::readWorkerMessage(request.message.header);
        if (m.op == "result")
            result = ps::readStepResult(request.message.header);
    } catch (const distribute::CollectiveError& e) {
        log("warning", std::string(e.what()) + " came from a peer with the job's keys; ignored");
        return;
    }
    const std::string& op = m.op;
    const std::string& task = m.task;
    auto it = m_workers.find(task);
    if (it == m_workers.end()) {
        log("warning", "a peer with the job's keys sent \"" + op + "\" as \"" + task + "\", which is no worker of "
                       "this cluster; ignored");
        return;
    }
    Worker& w = it->second;
    const int64_t pid = m.pid;
    // A heartbeat that gives its time gets the coordinator's: the worker's clock offset to the
    // job's clock (its step timelines).
    if (op == "heartbeat" && m.sentUs != 0)
        m_server->send(request.peer, ps::Message{ps::headerOf(ps::StepOrder{.op = "clock", .sentUs = m.sentUs,
                                                                            .chiefUs = systemMicroseconds()}),
                                                 {}});
    // A worker (re)joining: a new process; one that was wrongly given up for lost; or one that
    // trained for a coordinator before this one (relaunched alone), whose heartbeats arrive
    // here. Its hello and its heartbeats come on two sockets, in either order: the first
    // admits it, and its step socket's name is ps::workerIdentity(task, pid).
    const bool joins = pid != 0 && (op == "hello" || op == "heartbeat") && (!w.live || pid != w.pid);
    if (joins) {
        w.peer = op == "hello" ? request.peer : ps::workerIdentity(task, pid);
        w.pid = pid;
        if (w.running) {
            m_rerun.push_back(*w.running);
            w.running.reset();
        }
        int64_t slowest = -1;
        for (const auto& [name, other] : m_workers)
            if (other.live && &other != &w)
                slowest = slowest < 0 ? other.clock : std::min(slowest, other.clock);
        w.clock = std::max<int64_t>(slowest, 0);
        w.live = true;
        w.heard = Clock::now();
        events.emit(schema::event::kMembership, {{"member", task}, {"state", "joined"}, {"pid", pid}});
        return;
    }
    // Only from the worker's current process (not one it replaced).
    if ((op == "heartbeat" || op == "hello") && pid == w.pid)
        w.heard = Clock::now();
    // A result for an earlier coordinator's step (this one resumed from a checkpoint) is not
    // this run's.
    else if (result && request.peer == w.peer && m.run == m_incarnation) {
        w.heard = Clock::now();
        complete(w, *result, task);
    }
}

void Coordinator::checkLiveness()
{
    auto& client = strategy().client();
    client.receivePending();
    const auto now = Clock::now();
    const auto& job = layout();
    for (size_t i = 0; i < job.ps.size(); ++i)
        if (const auto since = client.unansweredSince(i); since && now - *since > job.timeout)
            throw distribute::CollectiveError(job.ps[i].name() + " (" + job.ps[i].address() + ") stopped answering: no reply for " +
                                        secondsText(std::chrono::duration<double>(now - *since).count()) +
                                        "; the job stops. Relaunch it to resume from the last checkpoint");
    for (auto& [name, w] : m_workers) {
        if (!w.live || now - w.heard <= job.timeout)
            continue;
        w.live = false;
        std::string reason = "unheard for " + secondsText(std::chrono::duration<double>(now - w.heard).count());
        if (w.running) {
            reason += "; its step " + std::to_string(*w.running + 1) + " runs again on another worker";
            m_rerun.push_back(*w.running);
            w.running.reset();
        }
        events.emit(schema::event::kMembership, {{"member", name}, {"state", "lost"}, {"reason", reason}});
        log("warning", name + " lost (" + reason + "); training goes on");
    }
}

void Coordinator::pump(std::chrono::milliseconds timeout)
{
    auto sockets = strategy().client().sockets();
    if (auto request = m_server->wait(timeout, sockets))
        handle(*request);
    // Everything already queued, so that heartbeats that waited are counted before liveness.
    while (auto more = m_server->wait(std::chrono::milliseconds(0)))
        handle(*more);
    if (Clock::now() - m_lastPing >= std::chrono::milliseconds(250)) {
        strategy().client().ping();
        for (auto& [name, w] : m_workers)
            if (w.live)
                m_server->send(w.peer, ps::Message{ps::headerOf(ps::StepOrder{.op = "ping"}), {}});
        m_lastPing = Clock::now();
    }
    checkLiveness();
}

// Starting is not training: every worker is waited for (the start-up allowance at most)
// before the first step, so that none finds the job over when it comes; one still missing then
// is named, and the job goes on without it (it may join later, as TensorFlow's workers do).
void Coordinator::awaitWorkers()
{
    const auto allowance = layout().startupTimeout;
    const auto deadline = Clock::now() + allowance;
    const auto missing = [&] {
        std::string names;
        for (const auto& [name, w] : m_workers)
            if (!w.live)
                names += (names.empty() ? "" : ", ") + name;
        return names;
    };
    while (!missing().empty() && Clock::now() < deadline && !stopRequested())
        pump(std::chrono::milliseconds(50));
    if (const std::string names = missing(); !names.empty() && !stopRequested())
        log("warning", names + " did not join within " + secondsText(std::chrono::duration<double>(allowance).count()) +
                           " (strategy.startup_timeout_seconds); training starts without them");
}

void Coordinator::runSteps(int64_t until)
{
    auto inFlight = [&] {
        return std::any_of(m_workers.begin(), m_workers.end(), [](const auto& w) { return w.second.running.has_value(); });
    };
    while (m_completed < until || inFlight()) {
        if (stopRequested() && !inFlight() && m_rerun.empty())
            break;
        schedule(until);
        pump(std::chrono::milliseconds(50));
        emitStep(false);
        if (stopRequested() && !inFlight())
            break;
    }
    emitStep(true);
}

void Coordinator::emitStep(bool force)
{
    if (m_window.empty() || (!force && secondsSince(m_lastEmit) < options.eventIntervalSeconds))
        return;
    Json fields = m_window.take(runningMetrics());
    const double seconds = std::max(secondsSince(m_lastEmit), 1e-3);
    Json workers = Json::array();
    int64_t samples = 0;
    for (auto& [name, w] : m_workers) {
        samples += w.windowSamples;
        workers.push_back({{"task", name},
                           {"steps", w.steps},
                           {"samples_per_s", static_cast<double>(w.windowSamples) / seconds},
                           {"staleness_mean", w.windowSteps > 0 ? w.windowStaleness / static_cast<double>(w.windowSteps) : 0.0},
                           {"staleness_max", w.windowStalenessMax},
                           {"state", !w.live ? "lost" : !w.running && !mayRun(w) ? "waiting" : "training"}});
        w.windowSamples = w.windowSteps = w.windowStalenessMax = 0;
        w.windowStaleness = 0;
    }
    fields["workers"] = workers;
    // The job's rate: the workers step side by side, so their step times do not add up.
    fields["samples_per_sec"] = static_cast<double>(samples) / seconds;
    events.emit(schema::event::kStep, fields);
    m_lastEmit = Clock::now();
}

void Coordinator::saveCheckpoint()
{
    strategy().fetch();
    Checkpoint c;
    c.step = m_completed;
    c.epoch = m_epoch;
    c.stepInEpoch = m_completed - m_epoch * stepsPerEpoch;
    c.streamBatch = m_completed;
    TrainingLoop::saveCheckpoint(c, strategy().model(), strategy().optimizer(), nullptr);
    lastCheckpointStep = m_completed;
}

void Coordinator::endEpoch(double seconds)
{
    std::function<Evaluation()> validate;
    if (!m_validation.empty())
        validate = [this] {
            strategy().fetch();
            return m_session.evaluate(m_session.validationSet(), m_validation);
        };
    reportEpoch(m_epoch, m_completed, seconds, validate);
    ++m_epoch;
    resetEpoch();
    if (checkpointDueAtEpochEnd(m_epoch, m_completed))
        saveCheckpoint();
}

Json Coordinator::run()
{
    const auto started = Clock::now();
    const auto& t = experiment.training;
    m_session = Session::open(experiment, options.task);
    metrics = m_session.createMetrics();
    auto split = m_session.split();
    m_validation = std::move(split.validation);
    {
        data::PipelineOptions po;
        po.batchSize = t.batchSize;
        po.prefetch = 0;
        stepsPerEpoch = t.stepsPerEpoch > 0 ? t.stepsPerEpoch
                                              : data::Pipeline(m_session.data.train, split.train, po).batchesPerEpoch();
    }
    m_server = std::make_unique<ps::Server>(strategy().context(), strategy().keys(), ps::JobLayout::endpoint(layout().chief));
    for (const auto& w : layout().workers)
        m_workers[w.name()] = Worker{};
    resume();
    nn::Sequential& model = strategy().model();
    reporter.openRun(runDir, experiment, model, true);
    schema::StartEvent start = startEvent(model, static_cast<int64_t>(split.train.size()),
                                        static_cast<int64_t>(m_validation.size()),
                                        m_session.data.test ? m_session.data.test->size() : 0, m_completed);
    start.strategy = "ParameterServer";
    start.replicas = start.workers = static_cast<int64_t>(layout().workers.size());
    start.taskReplicas = 0;
    start.ps = static_cast<int64_t>(layout().ps.size());
    start.batchSize = t.batchSize;
    reporter.start(start);
    events.emit(schema::event::kPlacement, schema::toJson(strategy().placement()));
    awaitWorkers();

    while (m_epoch < t.epochs && !stopRequested()) {
        if (options.progress)
            options.progress->startEpoch(m_epoch, t.epochs, stepsPerEpoch, m_completed - m_epoch * stepsPerEpoch);
        const auto epochStart = Clock::now();
        const int64_t epochEnd = (m_epoch + 1) * stepsPerEpoch;
        while (m_completed < epochEnd && !stopRequested()) {
            int64_t until = epochEnd;
            // Checkpoints every N steps: the steps before it finish first, so it is exact.
            if (t.checkpoint.enabled && t.checkpoint.everySteps > 0)
                until = std::min(until, (m_completed / t.checkpoint.everySteps + 1) * t.checkpoint.everySteps);
            runSteps(until);
            if (m_completed == until && until != epochEnd && t.checkpoint.enabled)
                saveCheckpoint();
        }
        if (m_completed == epochEnd)
            endEpoch(secondsSince(epochStart));
    }
    const bool stopped = m_epoch < t.epochs;
    if (t.checkpoint.enabled && lastCheckpointStep != m_completed)
        saveCheckpoint();
    strategy().fetch();
    writeWeights(model, m_completed, runDir.file("model.weights"));
    endJob(stopped ? "stopped" : "completed");

    const Json done =
        m_session.doneFields({stopped, m_completed, m_epoch, lastTrain, lastValidation}, runDir.path(), started);
    events.emit(schema::event::kDone, done);
    return done;
}

void Coordinator::endJob(const std::string& status)
{
    if (!m_server)
        return;
    const auto stop = [&] { return ps::Message{ps::headerOf(ps::StepOrder{.op = "stop", .status = status}), {}}; };
    for (auto& [name, w] : m_workers)
        if (w.live)
            m_server->send(w.peer, stop());
    // A job that ends before any worker was admitted (a refused resume): the workers saying
    // hello meanwhile are told too, rather than waiting minutes for a coordinator.
    if (std::none_of(m_workers.begin(), m_workers.end(), [](const auto& w) { return w.second.live; }))
        for (const auto until = Clock::now() + std::chrono::seconds(1); Clock::now() < until;)
            if (auto request = m_server->wait(std::chrono::milliseconds(50)); request && ps::opOf(request->message.header) == "hello")
                m_server->send(request->peer, stop());
    strategy().client().shutdown(status);
    // The sockets drop what they have not sent when they close: let the messages leave first.
    m_server->wait(std::chrono::milliseconds(200));
}

} // namespace

nlohmann::ordered_json runCoordinator(const schema::Experiment& experiment, const RunDirectory& runDir, EventSink& events,
                    const TrainerOptions& options)
{
    Coordinator coordinator(experiment, runDir, events, options);
    try {
        return coordinator.run();
    } catch (...) {
        // The other tasks stop now rather than when they miss the coordinator.
        coordinator.endJob("stopped");
        throw;
    }
}

} // namespace strata::ps
