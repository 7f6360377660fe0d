#include "strata/run/sidecar_evaluator.h"

#include "strata/core/error.h"
#include "strata/run/checkpoint.h"
#include "strata/run/model_state.h"
#include "strata/run/session.h"
#include "strata/spec/events.h"

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

} // namespace

nlohmann::ordered_json runSidecarEvaluator(spec::Experiment experiment, const RunDirectory& runDir, EventSink& events,
                                           SidecarOptions options)
{
    // The evaluator's one replica: it joins no job.
    experiment.strategy = spec::StrategySpec{};
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
    // Final weights left by an earlier run in this directory are not this job's.
    const auto weightsBefore = modified(finalWeights);
    events.emit(spec::event::kLog, {{"level", "info"},
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
        events.emit(spec::event::kEvaluation, fields);
        return true;
    };

    std::string status = "stopped";
    while (!(options.stopRequested && options.stopRequested->load())) {
        const auto weights = modified(finalWeights);
        if (weights && weights != weightsBefore && evaluateFile(finalWeights, true)) {
            status = "completed";
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
    events.emit(spec::event::kDone, done);
    return done;
}

} // namespace strata::run
