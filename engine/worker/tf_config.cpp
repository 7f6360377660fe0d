#include "tf_config.h"

#include "strata/core/error.h"

#include <cstdlib>
#include <filesystem>

namespace strata::cli {

namespace fs = std::filesystem;

namespace {

const char* kTfConfig = "TF_CONFIG";

// The experiment's "cluster" section, when the file is JSON and has one.
std::optional<schema::Json> clusterSectionOf(const std::string& file)
{
    const schema::Json document = schema::readJsonFile(file);
    if (document.is_object() && document.contains("cluster"))
        return document["cluster"];
    return std::nullopt;
}

// cluster.slurm as readCluster reads it (its problems are the experiment's to report).
std::optional<schema::SlurmSettings> slurmSettingsOf(const schema::Json& section)
{
    schema::Problems ignored;
    return schema::readCluster(&section, "cluster", ignored).slurm;
}

ProcessCluster fromSlurm(schema::SlurmOptions options)
{
    if (!options.nodeGpus)
        options.nodeGpus = nodeGpuCount();
    ProcessCluster out{"slurm", std::nullopt, std::nullopt, schema::resolveSlurmCluster(processEnvironment(), options)};
    out.cluster = schema::clusterToJson(schema::slurmClusterSpec(*out.slurm));
    out.task = out.slurm->taskName();
    return out;
}

} // namespace

const schema::Environment& processEnvironment()
{
    static const schema::Environment env = [] {
        schema::Environment read;
        std::vector<std::string> names = schema::slurmStepVariables();
        names.insert(names.end(), {kTfConfig, "CUDA_VISIBLE_DEVICES"});
        for (const std::string& name : names)
            if (const char* value = std::getenv(name.c_str()))
                read[name] = value;
        // An empty TF_CONFIG is none (as before Slurm: the experiment's cluster).
        if (read.count(kTfConfig) && read[kTfConfig].empty())
            read.erase(kTfConfig);
        return read;
    }();
    return env;
}

std::optional<int64_t> nodeGpuCount()
{
    std::error_code ec;
    fs::directory_iterator gpus("/proc/driver/nvidia/gpus", ec);
    if (ec)
        return std::nullopt;
    int64_t count = 0;
    for (auto it = gpus; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec)
            return std::nullopt;
        ++count;
    }
    return count;
}

ProcessCluster resolveProcessCluster(const schema::Json* clusterSection, const std::optional<schema::SlurmOptions>& forced)
{
    if (forced)
        return fromSlurm(*forced);
    const schema::Environment& env = processEnvironment();
    if (const auto text = env.find(kTfConfig); text != env.end()) {
        const schema::Json config = schema::parseTfConfig(text->second);
        // TensorFlow reads a TF_CONFIG without a cluster as none: the process runs alone.
        if (schema::tfConfigNamesCluster(config)) {
            ProcessCluster out{"tf_config", schema::clusterToJson(schema::clusterFromTfConfig(config)),
                               schema::tfConfigTask(config), std::nullopt};
            return out;
        }
    }
    if (clusterSection) {
        if (const auto settings = slurmSettingsOf(*clusterSection))
            return fromSlurm(schema::slurmOptions(*settings));
        return {"experiment", std::nullopt, std::nullopt, std::nullopt};
    }
    if (schema::inSlurmStep(env))
        return fromSlurm({});
    return {"default", std::nullopt, std::nullopt, std::nullopt};
}

std::string taskName(const Args& args)
{
    if (args.has("--task"))
        return args.value("--task");
    try {
        std::optional<schema::Json> section;
        if (!args.positional.empty())
            section = clusterSectionOf(args.positional[0]);
        // The experiment's cluster (absent: the default one), not "no experiment".
        const schema::Json none = schema::Json::object();
        return resolveProcessCluster(section ? &*section : &none).task.value_or("worker:0");
    } catch (const Error&) { // reported with the experiment
        return "worker:0";
    }
}

std::string slurmTaskName(const std::string& file)
{
    const std::optional<schema::Json> section = clusterSectionOf(file);
    const std::optional<schema::SlurmSettings> settings = section ? slurmSettingsOf(*section) : std::nullopt;
    if (!settings)
        throw ConfigError("cluster.slurm", "slurm-task runs a task of a Slurm job: " + file + " names no cluster.slurm");
    return fromSlurm(schema::slurmOptions(*settings)).task.value_or("worker:0");
}

schema::Experiment loadWithTfConfig(const std::string& file)
{
    const std::optional<schema::Json> section = clusterSectionOf(file);
    const schema::Json none = schema::Json::object();
    const ProcessCluster resolved = resolveProcessCluster(section ? &*section : &none);
    if (!resolved.cluster)
        return schema::loadExperiment(file);
    // TF_CONFIG and Slurm name addresses only: the document's policies stay.
    return schema::loadExperiment(file, &*resolved.cluster);
}

void setSlurmGpus(const std::string& file)
{
    try {
        const std::optional<schema::Json> section = clusterSectionOf(file);
        const schema::Json none = schema::Json::object();
        const ProcessCluster resolved = resolveProcessCluster(section ? &*section : &none);
        if (resolved.slurm && resolved.slurm->cudaVisibleDevices)
            ::setenv("CUDA_VISIBLE_DEVICES", resolved.slurm->cudaVisibleDevices->c_str(), 1);
    } catch (const Error&) { // reported with the experiment
    }
}

} // namespace strata::cli
