#include "tf_config.h"

#include "strata/core/error.h"
#include "strata/schema/task_gpus.h"

#include <cstdlib>
#include <filesystem>

namespace strata::cli {

namespace fs = std::filesystem;

namespace {

const char* kTfConfig = "TF_CONFIG";
const char* kNodeGpus = "STRATA_NODE_GPUS";
const char* kVisibleDevices = "CUDA_VISIBLE_DEVICES";

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
        names.insert(names.end(), {kTfConfig, kVisibleDevices, kNodeGpus});
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
    const schema::Environment& env = processEnvironment();
    if (const auto set = env.find(kNodeGpus); set != env.end()) {
        const std::string& text = set->second;
        if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos ||
            std::stoll(text) > 65535)
            throw ConfigError(kNodeGpus, "\"" + text + "\" is not a whole number of GPUs from 0 to 65535");
        return std::stoll(text);
    }
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

std::optional<std::string> taskGpus(const std::string& file, const std::string& task)
{
    const std::optional<schema::Json> section = clusterSectionOf(file);
    const schema::Json none = schema::Json::object();
    const ProcessCluster resolved = resolveProcessCluster(section ? &*section : &none);
    if (resolved.slurm)
        return resolved.slurm->cudaVisibleDevices;
    const schema::Experiment experiment = schema::loadExperiment(file, resolved.cluster ? &*resolved.cluster : nullptr);
    const schema::Environment& env = processEnvironment();
    const auto visible = env.find(kVisibleDevices);
    return schema::taskCudaVisibleDevices(experiment, task, nodeGpuCount().value_or(0),
                                          visible != env.end() ? std::optional<std::string>(visible->second) : std::nullopt);
}

std::optional<std::string> setTaskGpus(const std::string& file, const std::string& task)
{
    if (const std::optional<std::string> gpus = taskGpus(file, task))
        ::setenv(kVisibleDevices, gpus->c_str(), 1);
    if (const char* now = std::getenv(kVisibleDevices))
        return std::string(now);
    return std::nullopt;
}

} // namespace strata::cli
