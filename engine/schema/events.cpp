#include "strata/schema/events.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>

namespace strata::schema {

namespace {

using Json = nlohmann::ordered_json;

// A number as an integer, as the app reads it (app/metrics/event_parse.h): as nlohmann's
// get<int64_t>() converts it (an unsigned beyond int64 wraps, a float is truncated); nothing
// for a float beyond int64's range.
std::optional<int64_t> integerOf(const Json& v)
{
    if (v.is_number_integer())
        return v.get<int64_t>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
            return static_cast<int64_t>(d);
    }
    return std::nullopt;
}

void readInteger(const Json& fields, const char* name, int64_t& into)
{
    if (const auto it = fields.find(name); it != fields.end())
        into = integerOf(*it).value_or(into);
}

void readInteger(const Json& fields, const char* name, std::optional<int64_t>& into)
{
    if (const auto it = fields.find(name); it != fields.end())
        if (const auto v = integerOf(*it))
            into = v;
}

void readText(const Json& fields, const char* name, std::string& into)
{
    if (const auto it = fields.find(name); it != fields.end() && it->is_string())
        into = it->get<std::string>();
}

void readText(const Json& fields, const char* name, std::optional<std::string>& into)
{
    if (const auto it = fields.find(name); it != fields.end() && it->is_string())
        into = it->get<std::string>();
}

void readNumber(const Json& fields, const char* name, double& into)
{
    if (const auto it = fields.find(name); it != fields.end() && it->is_number())
        into = it->get<double>();
}

// The members of `fields[name]` that are objects (or strings, for a list of names), read by `read`.
template<typename T, typename Read>
std::vector<T> readList(const Json& fields, const char* name, Read read)
{
    std::vector<T> out;
    if (const auto it = fields.find(name); it != fields.end() && it->is_array())
        for (const Json& item : *it)
            if (auto value = read(item))
                out.push_back(std::move(*value));
    return out;
}

std::optional<std::string> textOf(const Json& v) { return v.is_string() ? std::optional(v.get<std::string>()) : std::nullopt; }

Json toJson(const PlacementEvent::Variable& v)
{
    Json j{{"name", v.name}, {"shape", v.shape}, {"bytes", v.bytes}, {"devices", v.devices}};
    if (v.shards) {
        Json shards = Json::array();
        for (const auto& s : *v.shards)
            shards.push_back({{"name", s.name}, {"ps", s.ps}, {"rows", {s.rowBegin, s.rowEnd}}, {"bytes", s.bytes}});
        j["shards"] = shards;
    }
    return j;
}

std::optional<PlacementEvent::Variable> readVariable(const Json& j)
{
    if (!j.is_object())
        return std::nullopt;
    PlacementEvent::Variable v;
    readText(j, "name", v.name);
    v.shape = readList<int64_t>(j, "shape", integerOf);
    readInteger(j, "bytes", v.bytes);
    v.devices = readList<std::string>(j, "devices", textOf);
    if (const auto it = j.find("shards"); it != j.end() && it->is_array())
        v.shards = readList<PlacementEvent::Shard>(j, "shards", [](const Json& s) -> std::optional<PlacementEvent::Shard> {
            if (!s.is_object())
                return std::nullopt;
            PlacementEvent::Shard shard;
            readText(s, "name", shard.name);
            readText(s, "ps", shard.ps);
            const auto rows = readList<int64_t>(s, "rows", integerOf);
            if (rows.size() == 2) {
                shard.rowBegin = rows[0];
                shard.rowEnd = rows[1];
            }
            readInteger(s, "bytes", shard.bytes);
            return shard;
        });
    return v;
}

Json toJson(const PlacementEvent::Reduction& r)
{
    Json j = Json::object();
    if (r.crossDeviceOps)
        j["cross_device_ops"] = *r.crossDeviceOps;
    j["algorithm"] = r.algorithm;
    if (r.bucketBytes)
        j["bucket_bytes"] = *r.bucketBytes;
    if (r.buckets)
        j["buckets"] = *r.buckets;
    j["bytes_per_step"] = r.bytesPerStep;
    if (const auto& t = r.tuning) {
        Json tuning{{"state", t->state}, {"candidates", t->candidates}, {"steps", t->steps}};
        if (t->state == "tuned") {
            tuning["all_reduce"] = t->allReduce;
            tuning["speedup"] = t->speedup;
        }
        j["tuning"] = tuning;
    }
    return j;
}

PlacementEvent::Reduction readReduction(const Json& j)
{
    PlacementEvent::Reduction r;
    if (!j.is_object())
        return r;
    readText(j, "cross_device_ops", r.crossDeviceOps);
    readText(j, "algorithm", r.algorithm);
    readInteger(j, "bucket_bytes", r.bucketBytes);
    readInteger(j, "buckets", r.buckets);
    readInteger(j, "bytes_per_step", r.bytesPerStep);
    if (const auto it = j.find("tuning"); it != j.end() && it->is_object()) {
        PlacementTuning& t = r.tuning.emplace();
        readText(*it, "state", t.state);
        readInteger(*it, "candidates", t.candidates);
        readInteger(*it, "steps", t.steps);
        readText(*it, "all_reduce", t.allReduce);
        readNumber(*it, "speedup", t.speedup);
    }
    return r;
}

// Whether a part of the placement is there: any of its fields is (each field of a part reads
// on its own, as every other field, whatever its siblings).
bool hasAny(const Json& fields, std::initializer_list<const char*> names)
{
    return std::any_of(names.begin(), names.end(), [&](const char* name) { return fields.contains(name); });
}

const Json& member(const Json& fields, const char* name)
{
    static const Json kNull;
    const auto it = fields.find(name);
    return it == fields.end() ? kNull : *it;
}

} // namespace

Json toJson(const StartEvent& e)
{
    Json j{{"experiment", e.experiment},
           {"run_dir", e.runDir},
           {"strategy", e.strategy},
           {"replicas", e.replicas},
           {"task_replicas", e.taskReplicas},
           {"workers", e.workers}};
    if (e.ps)
        j["ps"] = *e.ps;
    j["epochs"] = e.epochs;
    j["steps_per_epoch"] = e.stepsPerEpoch;
    j["total_steps"] = e.totalSteps;
    j["batch_size"] = e.batchSize;
    j["per_replica_batch_size"] = e.perReplicaBatchSize;
    j["params"] = e.params;
    j["train_examples"] = e.trainExamples;
    j["validation_examples"] = e.validationExamples;
    j["test_examples"] = e.testExamples;
    j["resumed_from_step"] = e.resumedFromStep ? Json(*e.resumedFromStep) : Json();
    return j;
}

StartEvent readStartEvent(const Json& fields, StartEvent defaults)
{
    StartEvent e = std::move(defaults);
    if (!fields.is_object())
        return e;
    readText(fields, "experiment", e.experiment);
    readText(fields, "run_dir", e.runDir);
    readText(fields, "strategy", e.strategy);
    readInteger(fields, "replicas", e.replicas);
    readInteger(fields, "task_replicas", e.taskReplicas);
    readInteger(fields, "workers", e.workers);
    readInteger(fields, "ps", e.ps);
    readInteger(fields, "epochs", e.epochs);
    readInteger(fields, "steps_per_epoch", e.stepsPerEpoch);
    readInteger(fields, "total_steps", e.totalSteps);
    readInteger(fields, "batch_size", e.batchSize);
    readInteger(fields, "per_replica_batch_size", e.perReplicaBatchSize);
    readInteger(fields, "params", e.params);
    readInteger(fields, "train_examples", e.trainExamples);
    readInteger(fields, "validation_examples", e.validationExamples);
    readInteger(fields, "test_examples", e.testExamples);
    readInteger(fields, "resumed_from_step", e.resumedFromStep);
    return e;
}

Json toJson(const MetricValues& values)
{
    Json j = Json::object();
    for (const auto& [name, value] : values)
        j[name] = value;
    return j;
}

MetricValues readMetricValues(const Json& object)
{
    MetricValues values;
    if (!object.is_object())
        return values;
    for (const auto& [name, value] : object.items())
        if (value.is_number())
            values.emplace_back(name, value.get<double>());
    return values;
}

Json toJson(const EpochEvent& e)
{
    Json j{{"epoch", e.epoch}, {"epochs", e.epochs}, {"step", e.step}, {"train", toJson(e.train)}};
    if (e.validation)
        j["validation"] = toJson(*e.validation);
    j["seconds"] = e.seconds;
    return j;
}

EpochEvent readEpochEvent(const Json& fields, EpochEvent defaults)
{
    EpochEvent e = std::move(defaults);
    if (!fields.is_object())
        return e;
    readInteger(fields, "epoch", e.epoch);
    readInteger(fields, "epochs", e.epochs);
    readInteger(fields, "step", e.step);
    if (const auto it = fields.find("train"); it != fields.end())
        e.train = readMetricValues(*it);
    if (const auto it = fields.find("validation"); it != fields.end() && it->is_object())
        e.validation = readMetricValues(*it);
    if (const auto it = fields.find("seconds"); it != fields.end() && it->is_number())
        e.seconds = it->get<double>();
    return e;
}

Json toJson(const PlacementEvent& e)
{
    Json j{{"strategy", e.strategy}};
    if (e.requestedStrategy)
        j["requested_strategy"] = *e.requestedStrategy;
    Json replicas = Json::array();
    for (const auto& r : e.replicas)
        replicas.push_back({{"replica", r.replica}, {"device", r.device}, {"threads", r.threads}});
    j["replicas"] = replicas;
    j["per_replica_batch_size"] = e.perReplicaBatchSize;
    j["global_batch_size"] = e.globalBatchSize;
    j["learning_rate"] = {{"base", e.learningRate.base}, {"scaled", e.learningRate.scaled}, {"rule", e.learningRate.rule}};
    const auto& p = e.precision;
    j["precision"] = {{"compute", p.compute},
                      {"variables", p.variables},
                      {"gemm", p.gemm},
                      {"convolution", p.convolution},
                      {"loss_scaling", p.lossScaling}};
    if (e.parameterDevice)
        j["parameter_device"] = *e.parameterDevice;
    if (const auto& m = e.multiWorker) {
        j["task"] = m->task;
        j["workers"] = m->workers;
        j["tasks"] = m->tasks;
        j["total_replicas"] = m->totalReplicas;
    }
    if (const auto& ps = e.parameterServer) {
        j["worker_tasks"] = ps->workerTasks;
        j["ps_tasks"] = ps->psTasks;
        j["partitioner"] = ps->partitioner;
        j["max_staleness"] = ps->maxStaleness ? Json(*ps->maxStaleness) : Json();
    }
    Json variables = Json::array();
    for (const auto& v : e.variables)
        variables.push_back(toJson(v));
    j["variables"] = variables;
    j["reduction"] = toJson(e.reduction);
    return j;
}

PlacementEvent readPlacementEvent(const Json& fields)
{
    PlacementEvent e;
    if (!fields.is_object())
        return e;
    readText(fields, "strategy", e.strategy);
    readText(fields, "requested_strategy", e.requestedStrategy);
    e.replicas = readList<PlacementEvent::Replica>(fields, "replicas", [](const Json& r) -> std::optional<PlacementEvent::Replica> {
        if (!r.is_object())
            return std::nullopt;
        PlacementEvent::Replica replica;
        readInteger(r, "replica", replica.replica);
        readText(r, "device", replica.device);
        readInteger(r, "threads", replica.threads);
        return replica;
    });
    readInteger(fields, "per_replica_batch_size", e.perReplicaBatchSize);
    readInteger(fields, "global_batch_size", e.globalBatchSize);
    if (const Json& lr = member(fields, "learning_rate"); lr.is_object()) {
        readNumber(lr, "base", e.learningRate.base);
        readNumber(lr, "scaled", e.learningRate.scaled);
        readText(lr, "rule", e.learningRate.rule);
    }
    if (const Json& p = member(fields, "precision"); p.is_object()) {
        readText(p, "compute", e.precision.compute);
        readText(p, "variables", e.precision.variables);
        readText(p, "gemm", e.precision.gemm);
        readText(p, "convolution", e.precision.convolution);
        readText(p, "loss_scaling", e.precision.lossScaling);
    }
    readText(fields, "parameter_device", e.parameterDevice);
    if (hasAny(fields, {"task", "workers", "tasks", "total_replicas"})) {
        PlacementEvent::MultiWorker& m = e.multiWorker.emplace();
        readText(fields, "task", m.task);
        readInteger(fields, "workers", m.workers);
        m.tasks = readList<std::string>(fields, "tasks", textOf);
        readInteger(fields, "total_replicas", m.totalReplicas);
    }
    if (hasAny(fields, {"worker_tasks", "ps_tasks", "partitioner", "max_staleness"})) {
        PlacementEvent::ParameterServer& ps = e.parameterServer.emplace();
        ps.workerTasks = readList<std::string>(fields, "worker_tasks", textOf);
        ps.psTasks = readList<std::string>(fields, "ps_tasks", textOf);
        ps.partitioner = member(fields, "partitioner");
        readInteger(fields, "max_staleness", ps.maxStaleness);
    }
    e.variables = readList<PlacementEvent::Variable>(fields, "variables", readVariable);
    e.reduction = readReduction(member(fields, "reduction"));
    return e;
}

} // namespace strata::schema
