#include "strata/rundir/resume.h"

#include "strata/core/error.h"
#include "strata/rundir/atomic_file.h"
#include "strata/rundir/keras_weights.h"
#include "strata/rundir/model_state.h"
#include "strata/rundir/resume_fingerprint.h"

#include <filesystem>
#include <set>

namespace strata::run {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

const char* const kChoices = "start fresh (--fresh: the earlier checkpoints and weights are moved into "
                             "set-aside-<date>-<time>/ of the run directory, nothing is deleted)";

std::string layerOf(const nn::Sequential& model, const std::string& variable)
{
    const std::string layer = variable.substr(0, variable.find('/'));
    const auto& layers = model.spec().layers;
    for (size_t i = 0; i < layers.size(); ++i)
        if (layers[i].name == layer)
            return "layer " + layer + " (model.layers[" + std::to_string(i) + "], " + layers[i].type + ")";
    return "layer " + layer;
}

// Why the checkpoint's weights cannot be loaded into `model` as they are: as Keras'
// load_weights, every variable by name and shape, none missing and none left over.
std::vector<std::string> weightsMismatch(const Checkpoint& c, const nn::Sequential& model)
{
    std::vector<std::string> problems;
    std::set<std::string> wanted;
    for (const auto* list : {&model.parameters(), &model.states()})
        for (const nn::Parameter* p : *list) {
            wanted.insert(p->name);
            const Tensor* t = c.find(p->name);
            if (!t)
                problems.push_back(layerOf(model, p->name) + ": the checkpoint has no " + p->name);
            else if (t->shape() != p->value.shape())
                problems.push_back(layerOf(model, p->name) + ": " + p->name + " has shape " + t->shape().str() +
                                   " in the checkpoint, the model needs " + p->value.shape().str());
        }
    for (const auto& [name, tensor] : c.tensors)
        if (!name.starts_with("optimizer/") && !wanted.count(name))
            problems.push_back(layerOf(model, name) + ": the checkpoint holds " + name + ", which the model lacks");
    return problems;
}

std::string joinLines(const std::vector<std::string>& lines)
{
    std::string out;
    for (const auto& line : lines)
        out += "\n  " + line;
    return out;
}

bool startFromInitialWeights(const schema::Experiment& experiment, nn::Sequential& model, const LogFunction& log)
{
    const std::string& file = experiment.training.initialWeights;
    if (file.empty())
        return false;
    const std::string path = schema::resolvePath(experiment, file);
    loadInitialWeights(path, model);
    log("info", "starting from the initial weights in " + path);
    return true;
}

[[noreturn]] void refuseResume(const RunDirectory& runDir, const std::string& where, const Checkpoint& latest,
                               std::vector<ResumeError::Difference> differences, const nn::Sequential& model)
{
    std::vector<std::string> lines;
    for (const auto& d : differences)
        lines.push_back(d.str());
    std::string message = "cannot resume from " + where + ": this experiment differs from the one that wrote it in " +
                          std::to_string(differences.size()) + (differences.size() == 1 ? " field:" : " fields:") +
                          joinLines(lines) + "\nTo train this experiment in " + runDir.path() + ", " + kChoices;
    std::vector<std::string> choices{"fresh"};
    const auto problems = weightsMismatch(latest, model);
    if (problems.empty()) {
        message += " or load only the checkpoint's weights (--weights-only: the optimizer and the position start fresh).";
        choices.push_back("weights_only");
    } else {
        message += ".\nIts weights do not fit this model, so --weights-only cannot be used:" + joinLines(problems);
    }
    const std::string copy = runDir.file("experiment.strata.json");
    std::error_code ec;
    if (fs::exists(copy, ec))
        message += "\nTo resume instead, run the experiment that wrote it: " + copy;
    throw ResumeError(message, std::move(differences), std::move(choices));
}

} // namespace

const Json& Fingerprint::get()
{
    if (!m_value)
        m_value = resumeFingerprint(*m_experiment, m_replicas);
    return *m_value;
}

std::string setAsideTrainingState(const RunDirectory& runDir)
{
    std::error_code ec;
    if (CheckpointDirectory(runDir.checkpointDir()).list().empty() && !fs::exists(runDir.file("model.weights"), ec))
        return {};
    const std::string base = runDir.file("set-aside-" + localTimeStamp());
    std::string aside = base;
    for (int n = 2; !fs::create_directory(aside, ec); ++n) {
        if (ec)
            throw IoError("cannot create " + aside + " to set the earlier checkpoints aside: " + ec.message());
        aside = base + "-" + std::to_string(n);
    }
    // The checkpoints first: once they are gone, the run starts fresh whatever happens next.
    for (const char* name : {"checkpoints", "model.weights", "experiment.strata.json"}) {
        const std::string from = runDir.file(name);
        if (!fs::exists(from, ec))
            continue;
        fs::rename(from, fs::path(aside) / name, ec);
        if (ec)
            throw IoError("cannot move " + from + " into " + aside + ": " + ec.message());
    }
    syncDirectory(aside);
    syncDirectory(runDir.path());
    return aside;
}

StartingPoint startTraining(const RunDirectory& runDir, ResumeChoice choice, Fingerprint& fingerprint,
                            const schema::Experiment& experiment, nn::Sequential& model, nn::Optimizer& optimizer,
                            const LogFunction& log)
{
    const CheckpointDirectory checkpoints(runDir.checkpointDir());
    std::vector<std::string> skipped;
    std::optional<Checkpoint> latest = checkpoints.latest(&skipped);
    for (const auto& reason : skipped)
        log("warning", "skipping damaged checkpoint: " + reason);
    const std::string where =
        latest ? "the checkpoint at step " + std::to_string(latest->step) + " (" + checkpoints.pathOf(latest->step) + ")"
               : std::string();

    switch (choice) {
    case ResumeChoice::Resume: {
        if (!latest)
            return {std::nullopt, startFromInitialWeights(experiment, model, log)};
        const auto recorded = latest->extra.find("fingerprint");
        if (recorded == latest->extra.end()) {
            log("warning", where + " was written by a Strata that recorded no fingerprint: resuming without checking "
                                   "that this experiment is the one that wrote it");
        } else if (auto differences = fingerprintDifferences(*recorded, fingerprint.get()); !differences.empty()) {
            refuseResume(runDir, where, *latest, std::move(differences), model);
        }
        restoreState(*latest, model, &optimizer, "checkpoint at step " + std::to_string(latest->step));
        return {std::move(latest), false};
    }
    case ResumeChoice::Fresh: {
        if (const std::string aside = setAsideTrainingState(runDir); !aside.empty())
            log("info", "starting fresh (--fresh): the earlier checkpoints and weights are in " + aside);
        return {std::nullopt, startFromInitialWeights(experiment, model, log)};
    }
    case ResumeChoice::WeightsOnly: {
        if (!latest)
            throw DataError(checkpoints.dir(), "holds no intact checkpoint to load weights from (--weights-only)");
        if (const auto problems = weightsMismatch(*latest, model); !problems.empty()) {
            std::vector<ResumeError::Difference> differences;
            if (const auto recorded = latest->extra.find("fingerprint"); recorded != latest->extra.end())
                for (auto& d : fingerprintDifferences(*recorded, fingerprint.get()))
                    if (d.field.starts_with("model."))
                        differences.push_back(std::move(d));
            throw ResumeError("cannot load the weights of " + where + " (--weights-only): the model differs:" +
                                  joinLines(problems) + "\nTo train this model in " + runDir.path() + ", " + kChoices +
                                  ".",
                              std::move(differences), {"fresh"});
        }
        restoreState(*latest, model, nullptr, where);
        const std::string aside = setAsideTrainingState(runDir);
        log("info", "loaded the weights of the checkpoint at step " + std::to_string(latest->step) +
                        " (--weights-only); the optimizer and the position start fresh; the earlier checkpoints and "
                        "weights are in " + aside);
        if (!experiment.training.initialWeights.empty())
            log("info", "training.initial_weights is not used: the checkpoint's weights are");
        return {std::nullopt, true};
    }
    }
    return {};
}

} // namespace strata::run
