#include "strata/schema/experiment.h"

namespace strata::schema {

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

namespace {

Json sourceToJson(const DataSourceSpec& s)
{
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
    return source;
}

Json dataToJson(const DataSpec& d)
{
    Json data{{"source", sourceToJson(d.source)}, {"validation", d.validation},
              {"shuffle", d.shuffle},             {"prefetch", d.prefetch},
              {"shard_policy", d.shardPolicy},    {"evaluate_test", d.evaluateTest}};
    if (d.validation == "split")
        data["validation_split"] = d.validationSplit;
    if (d.trainLimit)
        data["train_limit"] = d.trainLimit;
    if (d.testLimit)
        data["test_limit"] = d.testLimit;
    return data;
}

Json optimizerToJson(const OptimizerSpec& o)
{
    Json optimizer{{"type", o.type}, {"learning_rate", o.learningRate}};
    if (o.type == "sgd")
        optimizer.update({{"momentum", o.momentum}, {"nesterov", o.nesterov}});
    else if (o.type == "adam")
        optimizer.update({{"beta_1", o.beta1}, {"beta_2", o.beta2}, {"epsilon", o.epsilon}});
    else
        optimizer.update({{"rho", o.rho}, {"momentum", o.momentum}, {"epsilon", o.epsilon}, {"centered", o.centered}});
    return optimizer;
}

Json trainingToJson(const TrainingSpec& t)
{
    Json training{{"epochs", t.epochs},
                  {"batch_size", t.batchSize},
                  {"loss", {{"type", t.loss.type}, {"from_logits", t.loss.fromLogits}}},
                  {"metrics", t.metrics},
                  {"optimizer", optimizerToJson(t.optimizer)},
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
    return training;
}

// Written only when set: a document without it reads back the same.
void writeStartup(Json& strategy, const StrategySpec& st)
{
    if (st.startupTimeoutSeconds != defaultNumber("strategy.startup_timeout_seconds"))
        strategy["startup_timeout_seconds"] = st.startupTimeoutSeconds;
}

Json strategyToJson(const StrategySpec& st)
{
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
        if (st.bucketBytesAuto)
            strategy["bucket_bytes"] = "auto";
        else
            strategy["bucket_bytes"] = st.bucketBytes;
        strategy["timeout_seconds"] = st.timeoutSeconds;
        writeStartup(strategy, st);
    }
    if (st.type == "ParameterServer") {
        if (!st.partitioner.type.empty())
            strategy["partitioner"] = partitionerToJson(st.partitioner);
        if (st.maxStaleness >= 0)
            strategy["max_staleness"] = st.maxStaleness;
        strategy["timeout_seconds"] = st.timeoutSeconds;
        writeStartup(strategy, st);
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
    return strategy;
}

} // namespace

Json experimentToJson(const Experiment& e)
{
    Json doc{{"strata", e.version}, {"name", e.name}};
    if (!e.description.empty())
        doc["description"] = e.description;
    doc["seed"] = e.seed;
    doc["strategy"] = strategyToJson(e.strategy);
    doc["cluster"] = clusterToJson(e.cluster);
    doc["model"] = modelToJson(e.model);
    doc["data"] = dataToJson(e.data);
    doc["training"] = trainingToJson(e.training);
    return doc;
}

} // namespace strata::schema
