#include "strata/training/sidecar_evaluator.h"

#include "strata/core/error.h"
#include "strata/rundir/checkpoint.h"
#include "strata/rundir/model_state.h"
#include "strata/training/session.h"
#include "strata/rundir/task_files.h"
#include "strata/rundir/task_record.h"
#include "strata/schema/events.h"

#include <cmath>
#include <filesystem>
#include <optional>
#include <thread>

namespace strata::run {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::optional<fs::file_time_type> modified(const std::string& path)
{
    std::error_code ec;
    const auto t = fs::last_write_time(path, ec);
    return ec ? std::nullopt : std::optional(t);
}

// The task whose run directory the evaluator follows: chief:0, else worker:0.
std::string firstTrainingTask(const schema::ClusterSpec& cluster)
{
    for (const auto& name : schema::taskNames(cluster))
        if (name.starts_with("chief:") || name.starts_with("worker:"))
            return name;
    return "worker:0";
}

// Whether the first training task has ended, from its task record (a task started by plain
// `train` has none: never). A record of this evaluator's launch is this job's. Otherwise a
// record over when first seen, of a session started before the evaluator, may be a previous
// session's about to be replaced by this job's: it counts only after `grace`.
class TrainingEnd {
public:
    TrainingEnd(std::string recordPath, std::string launch, std::chrono::milliseconds grace)
        : m_path(std::move(recordPath)), m_launch(std::move(launch)), m_grace(grace), m_since(EventSink::now()) {}

    // When the chief's session of this launch began (unix seconds), once its record was seen.
    std::optional<double> sessionStarted() const { return m_sessionStarted; }

    bool ended()
    {
        const auto record = TaskRecord::read(m_path);
        if (!record) {
            m_firstOver.reset();
            return false;
        }
        if (!(record->supervisor == m_supervisor)) {
            m_supervisor = record->supervisor;
            m_sawRunning = false;
            m_firstOver.reset();
        }
        const bool thisLaunch = !m_launch.empty() && record->launch == m_launch;
        if (thisLaunch)
            m_sessionStarted = record->started;
        if (!record->over()) {
            m_sawRunning = true;
            return false;
        }
        if (thisLaunch || m_sawRunning || record->started >= m_since)
            return true;
        if (!m_firstOver)
            m_firstOver = Clock::now();
        return Clock::now() - *m_firstOver >= m_grace;
    }

private:
    std::string m_path;
    std::string m_launch;
    std::chrono::milliseconds m_grace;
    double m_since; // unix seconds
    ProcessIdentity m_supervisor;
    bool m_sawRunning = false;
    std::optional<Clock::time_point> m_firstOver;
    std::optional<double> m_sessionStarted;
};

// Whether a file modified at `time` was written after `since` (unix seconds).
bool writtenSince(fs::file_time_type time, std::optional<double> since)
{
    const auto written = std::chrono::duration<double>(std::chrono::file_clock::to_sys(time).time_since_epoch());
    return since && written.count() >= *since;
}

} // namespace

nlohmann::ordered_json runSidecarEvaluator(schema::Experiment experiment, const RunDirectory& runDir, EventSink& events,
                                           SidecarOptions options)
{
    // The evaluator's one replica: it joins no job.
    experiment.strategy = schema::StrategySpec{};
    Session session = Session::open(experiment);
    std::shared_ptr<data::Dataset> dataset = session.data.test;
    std::vector<int64_t> indices;
    if (dataset) {
        indices = indexRange(0, dataset->size());
    } else if (experiment.data.validation == "split") {
        dataset = session.data.train;
        const int64_t n = dataset->size();
        indices = indexRange(n - static_cast<int64_t>(std::floor(static_cast<double>(n) * experiment.data.validationSplit)), n);
    } else {
        throw ConfigError("data", "the evaluator has nothing to evaluate on: the data source has no test split and "
                                  "data.validation is not \"split\"");
    }

    const CheckpointDirectory checkpoints(runDir.checkpointDir());
    const std::string finalWeights = runDir.file("model.weights");
    // Final weights left by an earlier run in this directory are not this job's (unless the
    // chief's session of this launch wrote them: see TrainingEnd).
    const auto weightsBefore = modified(finalWeights);
    events.emit(schema::event::kLog, {{"level", "info"},
                                    {"message", "evaluating the checkpoints of " + runDir.path() + " as they appear, on " +
                                                    std::to_string(indices.size()) + " examples of " +
                                                    dataset->description()}});
    int evaluations = 0;
    nlohmann::ordered_json last;
    std::string lastPath;
    const auto evaluateFile = [&](const std::string& path, bool final) {
        Checkpoint c;
        try {
            c = readCheckpoint(path);
        } catch (const Error&) {
            return false; // removed (only the newest two are kept) or replaced meanwhile: next look
        }
        restoreState(c, session.model(), nullptr, path);
        const auto started = Clock::now();
        const Evaluation e = session.evaluate(dataset, indices);
        last = e.toJson();
        ++evaluations;
        nlohmann::ordered_json fields{{"step", c.step}, {"epoch", c.epoch}, {"checkpoint", path}, {"final", final},
                                      {"metrics", last}, {"examples", e.examples},
                                      {"ms", std::chrono::duration<double, std::milli>(Clock::now() - started).count()}};
        events.emit(schema::event::kEvaluation, fields);
        return true;
    };

    const std::string chief = firstTrainingTask(experiment.cluster);
    TrainingEnd chiefEnd(TaskFiles::of(runDir.path(), chief).record, options.launch, options.staleRecordGrace);
    std::string status = "stopped";
    while (!(options.stopRequested && options.stopRequested->load())) {
        // Before the weights: a chief that ended has written them by then, if ever.
        const bool chiefEnded = chiefEnd.ended();
        const auto weights = modified(finalWeights);
        const bool thisJobs = weights && (weights != weightsBefore || writtenSince(*weights, chiefEnd.sessionStarted()));
        if (thisJobs && evaluateFile(finalWeights, true)) {
            status = "completed";
            break;
        }
        if (chiefEnded) {
            events.emit(schema::event::kLog, {{"level", "info"},
                                            {"message", chief + " ended without final weights: nothing more to evaluate"}});
            break;
        }
        const auto paths = checkpoints.list();
        if (!paths.empty() && paths.front() != lastPath && evaluateFile(paths.front(), false))
            lastPath = paths.front();
        std::this_thread::sleep_for(options.poll);
    }
    nlohmann::ordered_json done{{"status", status}, {"evaluations", evaluations}, {"run_dir", runDir.path()}};
    if (!last.is_null())
        done["metrics"] = last;
    events.emit(schema::event::kDone, done);
    return done;
}

} // namespace strata::run
