// `strata-engine evaluate | predict`: use a finished run's weights on the test split.

#include "cli.h"

#include "strata/core/error.h"
#include "strata/rundir/checkpoint.h"
#include "strata/rundir/model_state.h"
#include "strata/rundir/run_directory.h"
#include "strata/training/session.h"

#include <cstdio>
#include <filesystem>

namespace strata::cli {

namespace {

// The experiment's session with the run directory's final weights loaded.
run::Session openTrained(const Args& args)
{
    if (args.positional.size() != 1)
        throw UsageError(args.command + " needs exactly one experiment file");
    if (!args.has("--run-dir"))
        throw UsageError(args.command + " needs --run-dir (the run whose weights to use)");
    const std::string weightsFile = (std::filesystem::path(args.value("--run-dir")) / "model.weights").string();
    schema::Experiment experiment = schema::loadExperiment(args.positional[0]);
    // Inference runs here on one device, whichever strategy trained the weights.
    experiment.strategy = schema::StrategySpec{};
    run::Session session = run::Session::open(std::move(experiment));
    if (!session.data.test)
        throw ConfigError("data.source", "has no test split to " + args.command + " on");
    run::restoreState(run::readCheckpoint(weightsFile), session.model(), nullptr, weightsFile);
    return session;
}

} // namespace

int evaluateCommand(const Args& args)
{
    run::EventSink events("evaluate", nullptr);
    return guarded(events, [&] {
        run::Session session = openTrained(args);
        const auto& test = session.data.test;
        const run::Evaluation e = session.evaluate(test, run::indexRange(0, test->size()));
        nlohmann::ordered_json out = e.toJson();
        out["examples"] = e.examples;
        std::printf("%s\n", out.dump().c_str());
        return static_cast<int>(kOk);
    });
}

int predictCommand(const Args& args)
{
    run::EventSink events("predict", nullptr);
    return guarded(events, [&] {
        run::Session session = openTrained(args);
        int64_t count = 10;
        try {
            count = std::stoll(args.value("--count", "10"));
        } catch (const std::exception&) {
            throw UsageError("--count needs a whole number");
        }
        const auto& test = session.data.test;
        count = std::clamp<int64_t>(count, 0, test->size());
        const Tensor out = run::predict(session.model(), test, run::indexRange(0, count), session.experiment.training.batchSize);
        const int64_t width = out.numel() / std::max<int64_t>(count, 1);
        for (int64_t i = 0; i < count; ++i) {
            const float* row = out.data() + i * width;
            std::printf("%s\n", nlohmann::ordered_json{{"index", i}, {"output", std::vector<float>(row, row + width)}}.dump().c_str());
        }
        return static_cast<int>(kOk);
    });
}

} // namespace strata::cli
