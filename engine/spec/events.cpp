#include "strata/spec/events.h"

namespace strata::spec {

namespace {

using Json = nlohmann::ordered_json;

void readInteger(const Json& fields, const char* name, int64_t& into)
{
    if (const auto it = fields.find(name); it != fields.end() && it->is_number())
        into = it->get<int64_t>();
}

void readInteger(const Json& fields, const char* name, std::optional<int64_t>& into)
{
    if (const auto it = fields.find(name); it != fields.end() && it->is_number())
        into = it->get<int64_t>();
}

void readText(const Json& fields, const char* name, std::string& into)
{
    if (const auto it = fields.find(name); it != fields.end() && it->is_string())
        into = it->get<std::string>();
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

StartEvent readStartEvent(const Json& fields)
{
    StartEvent e;
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

EpochEvent readEpochEvent(const Json& fields)
{
    EpochEvent e;
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

} // namespace strata::spec
