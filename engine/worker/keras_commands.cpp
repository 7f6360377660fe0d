// `strata-engine export-keras`: a run's weights as the files Keras 3 loads (config.json,
// model.weights.h5, metadata.json), docs/keras-export.md.

#include "cli.h"

#include "strata/core/error.h"
#include "strata/rundir/checkpoint.h"
#include "strata/rundir/keras_weights.h"
#include "strata/rundir/model_state.h"
#include "strata/rundir/run_directory.h"
#include "strata/schema/keras_format.h"

#include <cstdio>
#include <ctime>
#include <filesystem>

namespace strata::cli {

namespace fs = std::filesystem;

namespace {

// keras.saving's date_saved: "%Y-%m-%d@%H:%M:%S", local time.
std::string dateSaved()
{
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d@%H:%M:%S", &local);
    return text;
}

} // namespace

int exportKerasCommand(const Args& args)
{
    run::EventSink events("export-keras", nullptr);
    return guarded(events, [&] {
        if (args.positional.empty() || args.positional.size() > 2)
            throw UsageError("export-keras needs a run directory (or a weights file and its experiment)");
        if (!args.has("--out") || args.value("--out").empty())
            throw UsageError("export-keras needs --out DIR (where config.json and model.weights.h5 go)");
        const schema::KerasVersion version =
            schema::parseKerasVersion(args.value("--keras-version", schema::kDefaultKerasVersion.str()), "--keras-version");

        // A run directory: its final weights and the experiment copy the run wrote; a file: a
        // model.weights or checkpoint, with the experiment it was trained with.
        const std::string source = args.positional[0];
        std::string weightsFile, experimentFile;
        std::error_code ec;
        if (fs::is_directory(source, ec)) {
            weightsFile = (fs::path(source) / "model.weights").string();
            experimentFile = args.positional.size() == 2 ? args.positional[1]
                                                         : (fs::path(source) / "experiment.strata.json").string();
            if (!fs::exists(weightsFile, ec))
                throw IoError(source + " has no model.weights: the run has not finished (a checkpoint can be exported "
                                       "instead: export-keras " + source + "/checkpoints/ckpt-N.strata EXPERIMENT)");
        } else {
            if (!fs::exists(source, ec))
                throw IoError(source + ": no such run directory or weights file");
            if (args.positional.size() != 2)
                throw UsageError("export-keras " + source + ": a weights file needs the experiment it was trained with");
            weightsFile = source;
            experimentFile = args.positional[1];
        }

        const schema::Experiment experiment = schema::loadExperiment(experimentFile);
        nn::Sequential model(experiment.model, experiment.seed);
        run::restoreState(run::readCheckpoint(weightsFile), model, nullptr, weightsFile);

        const run::RunDirectory out(args.value("--out"));
        // One line, as keras.saving writes it (json.dumps).
        out.writeFile("config.json", schema::kerasModelConfig(model.spec(), version).dump() + "\n");
        out.writeFile("metadata.json", schema::kerasMetadata(version, dateSaved()).dump() + "\n");
        run::writeKerasWeights(model, out.file("model.weights.h5"), version);

        const size_t variables = model.parameters().size() + model.states().size();
        std::printf("%s\n", nlohmann::ordered_json{{"config", out.file("config.json")},
                                                   {"weights", out.file("model.weights.h5")},
                                                   {"metadata", out.file("metadata.json")},
                                                   {"keras_version", version.str()},
                                                   {"layers", model.layerCount()},
                                                   {"variables", variables},
                                                   {"source", weightsFile}}
                                .dump()
                                .c_str());
        return static_cast<int>(kOk);
    });
}

} // namespace strata::cli
