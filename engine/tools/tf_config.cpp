#include "tf_config.h"

#include "strata/core/error.h"

#include <cstdlib>

namespace strata::cli {

namespace {

const char* tfConfigText()
{
    const char* text = std::getenv("TF_CONFIG");
    return text && *text ? text : nullptr;
}

} // namespace

std::string taskName(const Args& args)
{
    if (args.has("--task") || !tfConfigText())
        return args.value("--task", "worker:0");
    try {
        const auto task = spec::Json::parse(tfConfigText()).at("task");
        return task.value("type", "worker") + ":" + std::to_string(task.value("index", 0));
    } catch (const std::exception&) {
        return "worker:0"; // a broken TF_CONFIG is reported with the experiment
    }
}

void applyTfConfig(spec::Experiment& experiment)
{
    if (!tfConfigText())
        return;
    spec::Json config;
    try {
        config = spec::Json::parse(tfConfigText());
    } catch (const std::exception& e) {
        throw ConfigError("TF_CONFIG", std::string("is not JSON: ") + e.what());
    }
    // TF_CONFIG names addresses only: the document's policies stay.
    const int64_t stopUnattended = experiment.cluster.stopUnattendedSeconds;
    experiment.cluster = spec::clusterFromTfConfig(config);
    experiment.cluster.stopUnattendedSeconds = stopUnattended;
}

} // namespace strata::cli
