#include "strata/schema/experiment.h"

#include "experiment_sections.h"

#include <cstdlib>
#include <filesystem>

namespace strata::schema {

namespace fs = std::filesystem;

const std::vector<std::string>& strategyNames()
{
    static const std::vector<std::string> names = {"Default",       "OneDevice",  "Mirrored",
                                                   "MultiWorkerMirrored", "ParameterServer", "CentralStorage",
                                                   "TPU"};
    return names;
}

const std::vector<std::string>& lossNames()
{
    static const std::vector<std::string> names = {"sparse_categorical_crossentropy", "categorical_crossentropy",
                                                   "binary_crossentropy", "mse"};
    return names;
}

const std::vector<std::string>& optimizerNames()
{
    static const std::vector<std::string> names = {"sgd", "adam", "rmsprop"};
    return names;
}

const std::vector<std::string>& dataSourceNames()
{
    static const std::vector<std::string> names = {"fashion_mnist", "mnist", "idx", "cifar10", "text", "synthetic"};
    return names;
}

namespace {

std::string stem(const std::string& file)
{
    std::string name = fs::path(file).filename().string();
    for (const char* suffix : {".strata.json", ".json"})
        if (name.size() > std::string(suffix).size() && name.ends_with(suffix))
            return name.substr(0, name.size() - std::string(suffix).size());
    return name;
}

} // namespace

Experiment parseExperiment(const Json& document, const std::string& baseDir, const std::string& defaultName)
{
    Problems problems;
    Experiment e;
    e.baseDir = baseDir;
    ObjectReader r(document, "", problems);
    if (!r.valid())
        problems.throwIfAny();
    e.version = static_cast<int>(r.integer("strata", kExperimentFormatVersion, 1, 1000));
    if (e.version > kExperimentFormatVersion)
        problems.add("strata", "format version " + std::to_string(e.version) +
                                   " is newer than this engine understands (" +
                                   std::to_string(kExperimentFormatVersion) + ")");
    e.name = r.string("name", defaultName.empty() ? std::string("experiment") : defaultName);
    e.description = r.string("description", "");
    e.seed = static_cast<uint64_t>(r.integer("seed", defaultInteger("seed"), 0));
    const size_t problemsBeforeStrategy = problems.list().size();
    e.strategy = readStrategy(r.child("strategy"), "strategy", problems, e.notes);
    const bool strategyRead = problems.list().size() == problemsBeforeStrategy;
    e.cluster = readCluster(r.child("cluster"), "cluster", problems);
    // A strategy with problems is not compared with the cluster: its type may be a fallback.
    if (strategyRead)
        checkClusterForStrategy(e.strategy, e.cluster, problems, e.notes);

    if (const Json* m = r.child("model")) {
        if (m->is_string()) {
            // A separate model file: our format or a Keras model.to_json() export.
            const std::string file = (fs::path(baseDir) / m->get<std::string>()).lexically_normal().string();
            try {
                e.model = parseModel(readJsonFile(file), "model", problems);
            } catch (const Error& err) {
                problems.add("model", err.what());
            }
        } else {
            e.model = parseModel(*m, "model", problems);
        }
    } else {
        problems.add("model", "is required");
    }
    e.data = readData(r.child("data"), "data", problems);
    e.training = readTraining(r.child("training"), "training", problems);
    r.finish();

    // The model must be buildable: shapes fit from input to output.
    if (problems.empty()) {
        const ModelShapes shapes = inferShapes(e.model);
        if (!shapes.ok())
            problems.add(indexPath("model.layers", static_cast<size_t>(shapes.failedLayer)), shapes.error);
        // The parameter servers hold trainable variables only: moving statistics updated by
        // the workers would need a ps-side assignment protocol Strata does not have yet.
        for (size_t i = 0; i < shapes.layers.size() && e.strategy.type == "ParameterServer"; ++i)
            if (shapes.layers[i].nonTrainableCount > 0)
                problems.add(indexPath("model.layers", i),
                             "layer \"" + e.model.layers[i].name + "\" (" + e.model.layers[i].type +
                                 ") keeps non-trainable moving statistics, which ParameterServer training does not "
                                 "support: choose a synchronous strategy (Mirrored, MultiWorkerMirrored)");
    }
    problems.throwIfAny();
    return e;
}

Experiment loadExperiment(const std::string& file, const Json* cluster)
{
    Json document = readJsonFile(file);
    if (cluster) {
        // The document's cluster policies (other fields than nodes and tasks) stay.
        Json replaced = *cluster;
        if (document.is_object() && document.contains("cluster") && document["cluster"].is_object())
            for (const auto& [key, value] : document["cluster"].items())
                if (key != "nodes" && key != "tasks")
                    replaced[key] = value;
        document["cluster"] = replaced;
    }
    const std::string baseDir = fs::absolute(fs::path(file)).parent_path().lexically_normal().string();
    return parseExperiment(document, baseDir, stem(file));
}

std::string resolvePath(const Experiment& experiment, const std::string& path)
{
    if (path.empty())
        return path;
    // "~/..." is the user's home, as in a shell.
    if (path.starts_with("~/")) {
        if (const char* home = std::getenv("HOME"))
            return (fs::path(home) / path.substr(2)).lexically_normal().string();
    }
    fs::path p(path);
    if (p.is_absolute())
        return p.lexically_normal().string();
    return (fs::path(experiment.baseDir) / p).lexically_normal().string();
}

} // namespace strata::schema
