#include "strata/schema/experiment.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <fstream>

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

// Where Debian's dataset packages install (dataset-fashion-mnist), unless STRATA_DATASETS_DIR
// names another root (scripts/gpu-check.sh points it at a carried copy).
std::string defaultDatasetDir(const std::string& name)
{
    const char* root = std::getenv("STRATA_DATASETS_DIR");
    return std::string(root && *root ? root : "/usr/share/datasets") + "/" + name;
}

// A list of device names: each parsed, none twice, all CPUs or all GPUs, CPUs within the
// declared logical devices.
void checkDevices(const std::vector<std::string>& devices, const std::string& path, int64_t logicalCpus,
                  Problems& problems, bool list = true)
{
    std::vector<Device> seen;
    for (size_t i = 0; i < devices.size(); ++i) {
        const std::string p = list ? indexPath(path, i) : path;
        try {
            const Device d = Device::parse(devices[i]);
            if (std::find(seen.begin(), seen.end(), d) != seen.end())
                problems.add(p, d.str() + " is listed twice");
            else if (!seen.empty() && seen.front().kind != d.kind)
                problems.add(p, "replicas must be all CPUs or all GPUs; " + d.str() + " does not match " +
                                    seen.front().str());
            else if (d.isCpu() && logicalCpus > 0 && d.index >= logicalCpus)
                problems.add(p, d.str() + " does not exist: logical_cpu_devices is " + std::to_string(logicalCpus));
            seen.push_back(d);
        } catch (const ConfigError& e) {
            problems.add(p, e.problems().front().message);
        }
    }
}

std::vector<std::string> readDeviceList(ObjectReader& r, const std::string& field)
{
    std::vector<std::string> out;
    const Json* v = r.child(field);
    if (!v)
        return out;
    if (!v->is_array() || v->empty()) {
        r.problems().add(r.pathOf(field), "must be a non-empty list of devices, e.g. [\"cpu:0\", \"cpu:1\"]");
        return out;
    }
    for (size_t i = 0; i < v->size(); ++i) {
        if (!(*v)[i].is_string())
            r.problems().add(indexPath(r.pathOf(field), i), "must be a device name, got " + describe((*v)[i]));
        else
            out.push_back((*v)[i].get<std::string>());
    }
    return out;
}

// Whether the strategy trains in one process (one chief or worker task, no parameter servers).
bool singleProcess(const std::string& type)
{
    return type != "MultiWorkerMirrored" && type != "ParameterServer";
}

void checkClusterForStrategy(const StrategySpec& s, const ClusterSpec& c, Problems& problems,
                             std::vector<ConfigProblem>& notes)
{
    if (s.type == "MultiWorkerMirrored") {
        if (const int64_t ps = taskCount(c, "ps"); ps > 0)
            problems.add("cluster.tasks", "MultiWorkerMirrored trains on its chief and workers; the cluster's " +
                                              std::to_string(ps) + " ps task" + (ps == 1 ? "" : "s") +
                                              " would never be used (parameter servers belong to ParameterServer "
                                              "training)");
        return;
    }
    if (s.type == "ParameterServer") {
        // TensorFlow's ParameterServerStrategy: a coordinator (the chief), workers and ps tasks.
        const int64_t chiefs = taskCount(c, "chief");
        if (chiefs != 1)
            problems.add("cluster.tasks", "ParameterServer needs exactly one chief task (the coordinator: it "
                                          "schedules the steps and writes checkpoints); the cluster has " +
                                              std::to_string(chiefs));
        if (taskCount(c, "worker") < 1)
            problems.add("cluster.tasks", "ParameterServer needs at least one worker task: the workers compute "
                                          "the gradients");
        if (taskCount(c, "ps") < 1)
            problems.add("cluster.tasks", "ParameterServer needs at least one ps task: the parameter servers "
                                          "hold the variables");
        return;
    }
    if (!singleProcess(s.type))
        return;
    if (taskCount(c, "evaluator") > 0)
        notes.push_back({"cluster.tasks", "the evaluator task is not started: under " + s.type +
                                              " the training task evaluates (data.validation, and the test "
                                              "split at the end)"});
    const int64_t trainers = taskCount(c, "chief") + taskCount(c, "worker");
    if (trainers > 1)
        problems.add("cluster.tasks", s.type + " trains in one process, but the cluster has " +
                                          std::to_string(trainers) +
                                          " chief and worker tasks: choose MultiWorkerMirrored to train across "
                                          "several workers, or keep one task");
    if (const int64_t ps = taskCount(c, "ps"); ps > 0)
        problems.add("cluster.tasks", s.type + " uses no parameter servers, but the cluster has " +
                                          std::to_string(ps) + " ps task" + (ps == 1 ? "" : "s") +
                                          " (parameter servers belong to ParameterServer training)");
}

const std::vector<std::string>& partitionerNames()
{
    static const std::vector<std::string> names = {"FixedShards", "MinSize", "MaxSize"};
    return names;
}

PartitionerSpec readPartitioner(const Json* json, const std::string& path, Problems& problems)
{
    PartitionerSpec p;
    if (!json)
        return p;
    ObjectReader r(*json, path, problems);
    if (!r.valid())
        return p;
    p.type = r.choice("type", "", partitionerNames());
    if (p.type.empty() && !r.has("type"))
        problems.add(r.pathOf("type"), "is required; one of: FixedShards, MinSize, MaxSize");
    if (p.type == "FixedShards") {
        p.numShards = r.integer("num_shards", 0, 1, 1 << 20);
        if (!r.has("num_shards"))
            problems.add(r.pathOf("num_shards"), "is required for FixedShards (the number of shards)");
    } else if (p.type == "MinSize") {
        p.minShardBytes = r.integer("min_shard_bytes", p.minShardBytes, 1, int64_t{1} << 40);
        p.maxShards = r.integer("max_shards", 1, 1, 1 << 20);
    } else if (p.type == "MaxSize") {
        p.maxShardBytes = r.integer("max_shard_bytes", 0, 1, int64_t{1} << 40);
        if (!r.has("max_shard_bytes"))
            problems.add(r.pathOf("max_shard_bytes"), "is required for MaxSize (the largest shard, in bytes)");
        p.maxShards = r.integer("max_shards", 0, 1, 1 << 20);
    }
    r.finish();
    return p;
}

StrategySpec readStrategy(const Json* json, const std::string& path, Problems& problems,
                          std::vector<ConfigProblem>& notes)
{
    StrategySpec s;
    if (!json)
        return s;
    const Json obj = json->is_string() ? Json{{"type", *json}} : *json;
    if (json->is_string()) {
        if (readChoice(*json, path, strategyNames(), problems).empty())
            return s;
    }
    ObjectReader r(obj, path, problems);
    if (!r.valid())
        return s;
    s.type = r.choice("type", s.type, strategyNames());
    const std::string typePath = r.pathOf("type");
    s.logicalCpuDevices = r.integer("logical_cpu_devices", 0, 1, 4096);
    s.logicalGpuDevices = r.integer("logical_gpu_devices", 0, 1, 64);
    if (s.type == "OneDevice") {
        s.device = r.string("device", s.device);
        checkDevices({s.device}, r.pathOf("device"), s.logicalCpuDevices, problems, false);
    } else if (s.type == "Mirrored" || s.type == "TPU") {
        s.devices = readDeviceList(r, "devices");
        checkDevices(s.devices, r.pathOf("devices"), s.logicalCpuDevices, problems);
        s.crossDeviceOps = r.choice("cross_device_ops", s.crossDeviceOps, {"all_reduce", "reduce_to_one_device"});
        if (s.type == "TPU") {
            s.fallback = r.choice("fallback", "", {"Mirrored"});
            if (s.fallback.empty())
                problems.add(typePath, "there is no TPU on this machine and Strata has no TPU runtime; add "
                                       "\"fallback\": \"Mirrored\" to train under MirroredStrategy instead");
            else
                notes.push_back({typePath, "there is no TPU on this machine: training under the declared fallback, "
                                           "MirroredStrategy"});
        }
    } else if (s.type == "MultiWorkerMirrored") {
        s.devices = readDeviceList(r, "devices");
        checkDevices(s.devices, r.pathOf("devices"), s.logicalCpuDevices, problems);
        s.bucketBytes = r.integer("bucket_bytes", s.bucketBytes, 1024, int64_t{1} << 32);
        s.timeoutSeconds = r.number("timeout_seconds", s.timeoutSeconds, 0.1, 86400);
    } else if (s.type == "CentralStorage") {
        s.computeDevices = readDeviceList(r, "compute_devices");
        checkDevices(s.computeDevices, r.pathOf("compute_devices"), s.logicalCpuDevices, problems);
        s.parameterDevice = r.string("parameter_device", s.parameterDevice);
        checkDevices({s.parameterDevice}, r.pathOf("parameter_device"), s.logicalCpuDevices, problems, false);
        if (s.computeDevices.size() == 1)
            notes.push_back({r.pathOf("compute_devices"),
                             "CentralStorage with one compute device degenerates to OneDevice (one replica, "
                             "variables on " + s.parameterDevice + ")"});
    } else if (s.type == "ParameterServer") {
        s.partitioner = readPartitioner(r.child("partitioner"), r.pathOf("partitioner"), problems);
        s.maxStaleness = r.integer("max_staleness", s.maxStaleness, -1, 1 << 30);
        // A lost worker's steps move on, and a lost ps stops the job, this soon.
        s.timeoutSeconds = r.number("timeout_seconds", kParameterServerTimeoutSeconds, 0.1, 86400);
    }
    r.finish();
    return s;
}

DataSourceSpec readSource(const Json* json, const std::string& path, Problems& problems)
{
    DataSourceSpec s;
    if (!json) {
        problems.add(path, "is required (e.g. {\"type\": \"fashion_mnist\"})");
        return s;
    }
    ObjectReader r(*json, path, problems);
    if (!r.valid())
        return s;
    s.type = r.choice("type", "", dataSourceNames());
    if (!r.has("type"))
        problems.add(r.pathOf("type"), "is required; one of: fashion_mnist, mnist, idx, cifar10, text, synthetic");
    s.normalize = r.boolean("normalize", true);
    if (s.type == "fashion_mnist" || s.type == "mnist") {
        s.dir = r.string("dir", s.type == "fashion_mnist" ? defaultDatasetDir("fashion-mnist") : "");
        if (s.dir.empty())
            problems.add(r.pathOf("dir"), "is required for mnist (the directory with train-images-idx3-ubyte.gz, ...)");
    } else if (s.type == "cifar10") {
        s.dir = r.maybeString("dir", true).value_or("");
    } else if (s.type == "idx") {
        s.trainImages = r.maybeString("train_images", true).value_or("");
        s.trainLabels = r.maybeString("train_labels", true).value_or("");
        s.testImages = r.string("test_images", "");
        s.testLabels = r.string("test_labels", "");
        if (s.testImages.empty() != s.testLabels.empty())
            problems.add(r.pathOf(s.testImages.empty() ? "test_images" : "test_labels"),
                         "test_images and test_labels go together");
    } else if (s.type == "text") {
        s.train = r.maybeString("train", true).value_or("");
        s.test = r.string("test", "");
        s.vocabSize = r.integer("vocab_size", s.vocabSize, 3, 10'000'000);
        s.maxLength = r.integer("max_length", s.maxLength, 1, 1'000'000);
    } else if (s.type == "synthetic") {
        s.task = r.choice("task", "regression", {"regression", "random_regression", "classification"});
        s.samples = r.integer("samples", s.samples, 1, 100'000'000);
        s.testSamples = r.integer("test_samples", s.testSamples, 0, 100'000'000);
        s.features = r.integer("features", s.features, 1, 1'000'000);
        s.classes = r.integer("classes", s.classes, 2, 1'000'000);
        // Centers are drawn with spread 2: unit noise lets neighbouring classes overlap, 0.1 would
        // make them trivially separable.
        s.noise = r.number("noise", s.task == "classification" ? 1.0 : 0.1, 0, 1e6);
    }
    r.finish();
    return s;
}

DataSpec readData(const Json* json, const std::string& path, Problems& problems)
{
    DataSpec d;
    if (!json) {
        problems.add(path, "is required");
        return d;
    }
    ObjectReader r(*json, path, problems);
    if (!r.valid())
        return d;
    d.source = readSource(r.child("source"), r.pathOf("source"), problems);
    d.validation = r.choice("validation", "none", {"none", "test", "split"});
    d.validationSplit = r.number("validation_split", 0, 0, 1);
    if (d.validation == "split" && !(d.validationSplit > 0 && d.validationSplit < 1))
        problems.add(r.pathOf("validation_split"), "must be between 0 and 1 (exclusive) when validation is \"split\"");
    if (d.validation != "split" && r.has("validation_split"))
        problems.add(r.pathOf("validation_split"), "is only used with \"validation\": \"split\"");
    d.shuffle = r.boolean("shuffle", true);
    d.prefetch = r.integer("prefetch", d.prefetch, 0, 64);
    d.shardPolicy = r.choice("shard_policy", d.shardPolicy, {"AUTO", "OFF", "FILE", "DATA"});
    d.evaluateTest = r.boolean("evaluate_test", true);
    d.trainLimit = r.integer("train_limit", 0, 0);
    d.testLimit = r.integer("test_limit", 0, 0);
    r.finish();
    return d;
}

// A section given as just its type ("adam" for {"type": "adam"}): an unknown type is
// reported at the section's own path.
Json shorthand(const Json& value, const std::string& path, const std::vector<std::string>& names, Problems& problems)
{
    if (!value.is_string())
        return value;
    if (value == "mean_squared_error")
        return Json{{"type", "mse"}};
    const std::string type = readChoice(value, path, names, problems);
    return type.empty() ? Json::object() : Json{{"type", type}};
}

LossSpec readLoss(const Json* json, const std::string& path, Problems& problems)
{
    LossSpec l;
    if (!json)
        return l;
    const Json obj = shorthand(*json, path, lossNames(), problems);
    ObjectReader r(obj, path, problems);
    if (const Json* type = r.child("type")) {
        const Json canonical = *type == "mean_squared_error" ? Json("mse") : *type;
        const std::string name = readChoice(canonical, r.pathOf("type"), lossNames(), problems);
        if (!name.empty())
            l.type = name;
    }
    l.fromLogits = r.boolean("from_logits", false);
    if (l.fromLogits && l.type == "mse")
        problems.add(r.pathOf("from_logits"), "does not apply to mse");
    r.finish();
    return l;
}

OptimizerSpec readOptimizer(const Json* json, const std::string& path, Problems& problems)
{
    OptimizerSpec o;
    if (!json)
        return o;
    const Json obj = shorthand(*json, path, optimizerNames(), problems);
    ObjectReader r(obj, path, problems);
    o.type = r.choice("type", o.type, optimizerNames());
    // Keras' defaults: SGD 0.01, Adam and RMSprop 0.001.
    o.learningRate = r.number("learning_rate", o.type == "sgd" ? 0.01 : 0.001, 0,
                              std::numeric_limits<double>::infinity(), true);
    if (o.type == "sgd") {
        o.momentum = r.number("momentum", 0, 0, 1);
        o.nesterov = r.boolean("nesterov", false);
    } else if (o.type == "adam") {
        o.beta1 = r.number("beta_1", o.beta1, 0, 1);
        o.beta2 = r.number("beta_2", o.beta2, 0, 1);
        o.epsilon = r.number("epsilon", o.epsilon, 0, 1, true);
    } else {
        o.rho = r.number("rho", o.rho, 0, 1);
        o.momentum = r.number("momentum", 0, 0, 1);
        o.epsilon = r.number("epsilon", o.epsilon, 0, 1, true);
        o.centered = r.boolean("centered", false);
    }
    r.finish();
    return o;
}

TrainingSpec readTraining(const Json* json, const std::string& path, Problems& problems)
{
    TrainingSpec t;
    if (!json) {
        problems.add(path, "is required");
        return t;
    }
    ObjectReader r(*json, path, problems);
    if (!r.valid())
        return t;
    t.epochs = r.integer("epochs", 1, 1, 1'000'000);
    t.batchSize = r.integer("batch_size", 32, 1, 1'000'000);
    t.stepsPerEpoch = r.integer("steps_per_epoch", 0, 0);
    t.loss = readLoss(r.child("loss"), r.pathOf("loss"), problems);
    if (const Json* m = r.child("metrics")) {
        t.metrics.clear();
        if (!m->is_array()) {
            problems.add(r.pathOf("metrics"), "must be a list, e.g. [\"accuracy\"]");
        } else {
            for (size_t i = 0; i < m->size(); ++i) {
                const std::string name =
                    readChoice((*m)[i], indexPath(r.pathOf("metrics"), i), {"accuracy", "mae", "mse"}, problems);
                if (!name.empty())
                    t.metrics.push_back(name);
            }
        }
    }
    t.optimizer = readOptimizer(r.child("optimizer"), r.pathOf("optimizer"), problems);
    if (const Json* c = r.child("checkpoint")) {
        ObjectReader cr(*c, r.pathOf("checkpoint"), problems);
        t.checkpoint.enabled = cr.boolean("enabled", true);
        t.checkpoint.everySteps = cr.integer("every_steps", 0, 0);
        t.checkpoint.everyEpochs = cr.integer("every_epochs", 1, 0);
        cr.finish();
    }
    t.threads = r.integer("threads", 0, 0, 4096);
    t.lrScaling = r.choice("lr_scaling", "none", {"none", "linear"});
    t.precision = r.choice("precision", "float32", {"float32", "tf32", "mixed_bfloat16"});
    t.initialWeights = r.string("initial_weights", "");
    r.finish();
    return t;
}

std::string stem(const std::string& file)
{
    std::string name = fs::path(file).filename().string();
    for (const char* suffix : {".strata.json", ".json"})
        if (name.size() > std::string(suffix).size() && name.ends_with(suffix))
            return name.substr(0, name.size() - std::string(suffix).size());
    return name;
}

} // namespace

Json parseJsonText(const std::string& text, const std::string& sourceName)
{
    // Line and column (1-based) of `offset`, and nlohmann's message without its prefix
    // ("[json.exception.parse_error.101] parse error at line 3, column 5: ").
    const auto fail = [&](size_t offset, std::string what) {
        int line = 1, column = 1;
        for (size_t i = 0; i < std::min(offset, text.size()); ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        if (auto pos = what.find("] "); pos != std::string::npos && what.starts_with("[json"))
            what = what.substr(pos + 2);
        if (auto pos = what.find(": "); pos != std::string::npos && what.starts_with("parse error"))
            what = what.substr(pos + 2);
        if (auto pos = what.find("syntax error while parsing value - "); pos != std::string::npos)
            what = what.substr(pos + 35);
        throw ParseError(sourceName, line, column, what);
    };
    try {
        return Json::parse(text);
    } catch (const Json::parse_error& e) {
        // e.byte is the 1-based offset where parsing stopped.
        fail(e.byte == 0 ? 0 : e.byte - 1, e.what());
    } catch (const Json::out_of_range& e) {
        // A number beyond a double ("number overflow parsing '1e400'"): nlohmann quotes it but
        // does not say where it is; its first occurrence is.
        const std::string what = e.what();
        const size_t open = what.find('\''), close = what.rfind('\'');
        const size_t at = open < close ? text.find(what.substr(open + 1, close - open - 1)) : std::string::npos;
        fail(at == std::string::npos ? 0 : at, what);
    }
    return {}; // not reached: fail() throws
}

Json readJsonFile(const std::string& file)
{
    // Names come from documents ("model": "keras.json"): a directory or a device (/dev/zero,
    // which never ends) is refused by name, and no document is read beyond a sane size.
    constexpr size_t kMaxDocumentBytes = size_t(256) << 20;
    std::error_code ec;
    const fs::file_status status = fs::status(file, ec);
    if (fs::is_directory(status))
        throw IoError(file + ": is a directory, not a JSON file");
    if (fs::is_character_file(status) || fs::is_block_file(status))
        throw IoError(file + ": is a device, not a JSON file");
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw IoError(file + ": cannot open: " + std::strerror(errno));
    std::string text;
    char chunk[64 << 10];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
        text.append(chunk, static_cast<size_t>(in.gcount()));
        if (text.size() > kMaxDocumentBytes)
            throw IoError(file + ": is larger than " + std::to_string(kMaxDocumentBytes >> 20) +
                          " MiB, too large for an experiment or model document");
    }
    if (in.bad())
        throw IoError(file + ": read error: " + std::strerror(errno));
    return parseJsonText(text, file);
}

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
    e.seed = static_cast<uint64_t>(r.integer("seed", 0, 0));
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

Json partitionerToJson(const PartitionerSpec& p)
{
    Json j{{"type", p.type.empty() ? "none" : p.type}};
    if (p.type == "FixedShards")
        j["num_shards"] = p.numShards;
    if (p.type == "MinSize")
        j["min_shard_bytes"] = p.minShardBytes;
    if (p.type == "MaxSize")
        j["max_shard_bytes"] = p.maxShardBytes;
    if (p.maxShards > 0)
        j["max_shards"] = p.maxShards;
    return j;
}

Json experimentToJson(const Experiment& e)
{
    const auto& s = e.data.source;
    Json source{{"type", s.type}};
    if (s.type == "fashion_mnist" || s.type == "mnist" || s.type == "cifar10")
        source["dir"] = s.dir;
    if (s.type == "idx") {
        source["train_images"] = s.trainImages;
        source["train_labels"] = s.trainLabels;
        if (!s.testImages.empty()) {
            source["test_images"] = s.testImages;
            source["test_labels"] = s.testLabels;
        }
    }
    if (s.type == "text") {
        source["train"] = s.train;
        if (!s.test.empty())
            source["test"] = s.test;
        source["vocab_size"] = s.vocabSize;
        source["max_length"] = s.maxLength;
    }
    if (s.type == "synthetic") {
        source.update({{"task", s.task}, {"samples", s.samples}, {"test_samples", s.testSamples},
                       {"features", s.features}, {"classes", s.classes}, {"noise", s.noise}});
    }
    if (!s.normalize)
        source["normalize"] = false;

    Json data{{"source", source},          {"validation", e.data.validation},
              {"shuffle", e.data.shuffle}, {"prefetch", e.data.prefetch},
              {"shard_policy", e.data.shardPolicy}, {"evaluate_test", e.data.evaluateTest}};
    if (e.data.validation == "split")
        data["validation_split"] = e.data.validationSplit;
    if (e.data.trainLimit)
        data["train_limit"] = e.data.trainLimit;
    if (e.data.testLimit)
        data["test_limit"] = e.data.testLimit;

    const auto& o = e.training.optimizer;
    Json optimizer{{"type", o.type}, {"learning_rate", o.learningRate}};
    if (o.type == "sgd")
        optimizer.update({{"momentum", o.momentum}, {"nesterov", o.nesterov}});
    else if (o.type == "adam")
        optimizer.update({{"beta_1", o.beta1}, {"beta_2", o.beta2}, {"epsilon", o.epsilon}});
    else
        optimizer.update({{"rho", o.rho}, {"momentum", o.momentum}, {"epsilon", o.epsilon}, {"centered", o.centered}});

    const auto& t = e.training;
    Json training{{"epochs", t.epochs},
                  {"batch_size", t.batchSize},
                  {"loss", {{"type", t.loss.type}, {"from_logits", t.loss.fromLogits}}},
                  {"metrics", t.metrics},
                  {"optimizer", optimizer},
                  {"checkpoint",
                   {{"enabled", t.checkpoint.enabled},
                    {"every_steps", t.checkpoint.everySteps},
                    {"every_epochs", t.checkpoint.everyEpochs}}},
                  {"threads", t.threads},
                  {"lr_scaling", t.lrScaling}};
    if (t.precision != "float32")
        training["precision"] = t.precision;
    if (t.stepsPerEpoch)
        training["steps_per_epoch"] = t.stepsPerEpoch;
    if (!t.initialWeights.empty())
        training["initial_weights"] = t.initialWeights;

    const auto& st = e.strategy;
    Json strategy{{"type", st.type}};
    if (st.type == "OneDevice")
        strategy["device"] = st.device;
    if (st.type == "Mirrored" || st.type == "TPU") {
        if (!st.devices.empty())
            strategy["devices"] = st.devices;
        strategy["cross_device_ops"] = st.crossDeviceOps;
        if (st.type == "TPU")
            strategy["fallback"] = st.fallback;
    }
    if (st.type == "MultiWorkerMirrored") {
        if (!st.devices.empty())
            strategy["devices"] = st.devices;
        strategy["bucket_bytes"] = st.bucketBytes;
        strategy["timeout_seconds"] = st.timeoutSeconds;
    }
    if (st.type == "ParameterServer") {
        if (!st.partitioner.type.empty())
            strategy["partitioner"] = partitionerToJson(st.partitioner);
        if (st.maxStaleness >= 0)
            strategy["max_staleness"] = st.maxStaleness;
        strategy["timeout_seconds"] = st.timeoutSeconds;
    }
    if (st.type == "CentralStorage") {
        if (!st.computeDevices.empty())
            strategy["compute_devices"] = st.computeDevices;
        strategy["parameter_device"] = st.parameterDevice;
    }
    if (st.logicalCpuDevices > 0)
        strategy["logical_cpu_devices"] = st.logicalCpuDevices;
    if (st.logicalGpuDevices > 0)
        strategy["logical_gpu_devices"] = st.logicalGpuDevices;

    Json doc{{"strata", e.version}, {"name", e.name}};
    if (!e.description.empty())
        doc["description"] = e.description;
    doc["seed"] = e.seed;
    doc["strategy"] = strategy;
    doc["cluster"] = clusterToJson(e.cluster);
    doc["model"] = modelToJson(e.model);
    doc["data"] = data;
    doc["training"] = training;
    return doc;
}

} // namespace strata::schema
