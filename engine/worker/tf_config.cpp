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
        // A broken TF_CONFIG is reported with the experiment.
        return schema::tfConfigTask(schema::parseTfConfig(tfConfigText())).value_or("worker:0");
    } catch (const ConfigError&) {
        return "worker:0";
    }
}

schema::Experiment loadWithTfConfig(const std::string& file)
{
    if (!tfConfigText())
        return schema::loadExperiment(file);
    // TF_CONFIG names addresses only: the document's policies stay.
    const schema::Json cluster = schema::clusterToJson(schema::clusterFromTfConfig(schema::parseTfConfig(tfConfigText())));
    return schema::loadExperiment(file, &cluster);
}

} // namespace strata::cli
