#pragma once
// The experiment document (*.strata.json): strategy, cluster, model, data, training settings
// and seed in one file. The GUI edits it, `strata run` runs it, the engine receives it.
// docs/experiment-schema.md describes every field.

#include "strata/core/device.h"
#include "strata/schema/cluster_spec.h"
#include "strata/schema/defaults.h"
#include "strata/schema/model_spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace strata::schema {

constexpr int kExperimentFormatVersion = 1;

// MultiWorkerMirrored's default gradient bucket (defaults.h says why this size).
constexpr int64_t kDefaultBucketBytes = defaultInteger("strategy.bucket_bytes");

// tf.distribute.experimental.partitioners: "" (none), "FixedShards" (num_shards), "MinSize"
// (min_shard_bytes, max_shards), "MaxSize" (max_shard_bytes, max_shards; 0: no maximum).
struct PartitionerSpec {
    std::string type;
    int64_t numShards = 1;
    int64_t minShardBytes = defaultInteger("strategy.partitioner.min_shard_bytes");
    int64_t maxShardBytes = 0;
    int64_t maxShards = 0; // 0: MinSize's default 1, MaxSize's none
};

constexpr double kParameterServerTimeoutSeconds = defaultNumber("strategy.timeout_seconds", "ParameterServer");

struct StrategySpec {
    std::string type{defaultText("strategy.type")}; // see strategyNames()
    // OneDevice: where the one replica runs.
    std::string device{defaultText("strategy.device")};
    // Mirrored (and TPU's fallback): one replica per device; empty: every local device.
    std::vector<std::string> devices;
    // Mirrored: how gradients are combined: "all_reduce" (every replica reduces a part, then
    // all gather) or "reduce_to_one_device" (summed on the first device, then broadcast).
    std::string crossDeviceOps{defaultText("strategy.cross_device_ops")};
    // CentralStorage: the replicas' devices (empty: every local device) and the one device
    // that holds the variables.
    std::vector<std::string> computeDevices;
    std::string parameterDevice{defaultText("strategy.parameter_device")};
    // MultiWorkerMirrored: `devices` are each worker's local replicas (empty: one, on cpu:0);
    // gradients travel in buckets of about this many bytes, each all-reduced while the layers
    // below compute; a task that does not arrive at a collective within the timeout is lost.
    int64_t bucketBytes = kDefaultBucketBytes;
    // bucket_bytes "auto": the bucket size and the all-reduce algorithm are tuned in the run's
    // first steps, starting from `bucketBytes` (the default), which wins ties (docs/tuning.md).
    bool bucketBytesAuto = false;
    double timeoutSeconds = defaultNumber("strategy.timeout_seconds");
    // MultiWorkerMirrored and ParameterServer: how long the job waits for every task to join
    // (or, ParameterServer, for the coordinator and the ps tasks to answer) at its start.
    double startupTimeoutSeconds = defaultNumber("strategy.startup_timeout_seconds");
    // TPU: the strategy to train under instead ("Mirrored"); empty: none, and TPU is refused.
    std::string fallback;
    // ParameterServer: how variables are split along their first axis (TensorFlow's
    // partitioners), the stale-synchronous bound (a worker more than this many steps ahead of
    // the slowest waits; 0: every step of a round sees all updates of the previous round; -1:
    // asynchronous, TensorFlow's behaviour), and `timeoutSeconds` above: how long a task may go
    // unheard before it is lost.
    PartitionerSpec partitioner;
    int64_t maxStaleness = defaultInteger("strategy.max_staleness");
    // Logical CPU devices cpu:0..N-1 this host offers, like tf.config's logical devices
    // (0: one per core). More than the cores is allowed; the replicas then share them.
    int64_t logicalCpuDevices = defaultInteger("strategy.logical_cpu_devices");
    // Logical GPU devices gpu:0..N-1 made from the first physical GPU (0: the physical GPUs as
    // they are), like tf.config's logical GPUs: Mirrored over them runs on one GPU.
    int64_t logicalGpuDevices = defaultInteger("strategy.logical_gpu_devices");

    // The strategy that trains: `type`, or the fallback of TPU.
    std::string effectiveType() const { return type == "TPU" ? fallback : type; }
};

struct DataSourceSpec {
    std::string type; // fashion_mnist, mnist, idx, cifar10, text, synthetic
    // fashion_mnist / mnist / cifar10: the directory holding the standard file names.
    std::string dir;
    // idx: explicit files (test ones optional).
    std::string trainImages, trainLabels, testImages, testLabels;
    // text: a file of "label<TAB>text" lines, or a directory with one sub-directory per class.
    std::string train, test;
    int64_t vocabSize = defaultInteger("data.source.vocab_size");
    int64_t maxLength = defaultInteger("data.source.max_length");
    // synthetic
    std::string task;          // regression, random_regression, classification
    int64_t samples = defaultInteger("data.source.samples");
    int64_t testSamples = defaultInteger("data.source.test_samples");
    int64_t features = defaultInteger("data.source.features");
    int64_t classes = defaultInteger("data.source.classes");
    double noise = defaultNumber("data.source.noise");
    // uint8 images scaled to [0, 1] (true) or kept as 0..255 (false).
    bool normalize = defaultFlag("data.source.normalize");
};

struct DataSpec {
    DataSourceSpec source;
    std::string validation{defaultText("data.validation")}; // none | test | split
    // The fraction taken from the end of the training set (Keras' validation_split).
    double validationSplit = defaultNumber("data.validation_split");
    bool shuffle = defaultFlag("data.shuffle");
    int64_t prefetch = defaultInteger("data.prefetch"); // batches prepared ahead on a background thread (0: none)
    // How input is divided among workers (tf.data's AutoShardPolicy): AUTO, OFF, FILE, DATA.
    // One worker reads everything whatever the policy.
    std::string shardPolicy{defaultText("data.shard_policy")};
    bool evaluateTest = defaultFlag("data.evaluate_test");  // evaluate on the test split after training
    int64_t trainLimit = defaultInteger("data.train_limit"); // use only the first N training examples (0: all)
    int64_t testLimit = defaultInteger("data.test_limit");
};

struct LossSpec {
    std::string type{defaultText("training.loss.type")};
    bool fromLogits = defaultFlag("training.loss.from_logits");
};

struct OptimizerSpec {
    std::string type{defaultText("training.optimizer.type")}; // sgd, adam, rmsprop
    double learningRate = defaultNumber("training.optimizer.learning_rate", "adam");
    double momentum = defaultNumber("training.optimizer.momentum"); // sgd, rmsprop
    bool nesterov = defaultFlag("training.optimizer.nesterov");      // sgd
    double beta1 = defaultNumber("training.optimizer.beta_1");       // adam
    double beta2 = defaultNumber("training.optimizer.beta_2");       // adam
    double epsilon = defaultNumber("training.optimizer.epsilon");    // adam, rmsprop
    double rho = defaultNumber("training.optimizer.rho");            // rmsprop
    bool centered = defaultFlag("training.optimizer.centered");      // rmsprop
};

struct CheckpointSpec {
    bool enabled = defaultFlag("training.checkpoint.enabled");
    int64_t everySteps = defaultInteger("training.checkpoint.every_steps");   // 0: not by steps
    int64_t everyEpochs = defaultInteger("training.checkpoint.every_epochs"); // 0: not at epoch ends
};

struct TrainingSpec {
    int64_t epochs = defaultInteger("training.epochs");
    // Per replica; the global batch is batchSize x replicas.
    int64_t batchSize = defaultInteger("training.batch_size");
    int64_t stepsPerEpoch = defaultInteger("training.steps_per_epoch"); // 0: one pass over the data
    LossSpec loss;
    std::vector<std::string> metrics = namesOf(defaultNames("training.metrics"));
    OptimizerSpec optimizer;
    CheckpointSpec checkpoint;
    // Compute threads per device; 0: the cores divided among the replicas.
    int64_t threads = defaultInteger("training.threads");
    // "linear": the learning rate is multiplied by the number of replicas (Goyal et al.,
    // seed 004 slide 14); "none": used as given.
    std::string lrScaling{defaultText("training.lr_scaling")};
    // "float32"; on GPUs also "tf32" (GEMMs and convolutions on TF32 tensor cores) or
    // "mixed_bfloat16" (Keras' policy: float32 variables, GEMMs on bfloat16 tensor cores, with
    // dynamic loss scaling).
    std::string precision{defaultText("training.precision")};
    // The weights a fresh run starts from instead of its initializers: a Keras 3
    // model.weights.h5 (matched as Keras matches layers: by class and position) or Strata's own
    // weights file (a run's model.weights, a checkpoint). Relative to the experiment's
    // directory; empty: none. A run resumed from its checkpoint ignores it.
    std::string initialWeights{defaultText("training.initial_weights")};
};

struct Experiment {
    int version = kExperimentFormatVersion;
    std::string name;
    std::string description;
    uint64_t seed = defaultInteger("seed");
    StrategySpec strategy;
    ClusterSpec cluster; // absent from the document: this machine, one worker
    ModelSpec model;
    DataSpec data;
    TrainingSpec training;
    std::string baseDir; // relative data paths are relative to this (the document's directory)
    // Things worth telling the user that do not stop the run (CentralStorage on one device...).
    std::vector<ConfigProblem> notes;
};

const std::vector<std::string>& strategyNames();
const std::vector<std::string>& lossNames();
const std::vector<std::string>& optimizerNames();
const std::vector<std::string>& dataSourceNames();

// Reads and validates a document; throws ConfigError listing every problem with its path.
Experiment parseExperiment(const Json& document, const std::string& baseDir, const std::string& defaultName = "");
// Reads a file: ParseError (line and column) for bad JSON, ConfigError, IoError. `cluster`,
// when given, replaces the document's tasks and nodes before it is checked (TF_CONFIG's).
Experiment loadExperiment(const std::string& file, const Json* cluster = nullptr);
// Parses JSON text; ParseError names `sourceName`, line and column.
Json parseJsonText(const std::string& text, const std::string& sourceName);
Json readJsonFile(const std::string& file);
Json experimentToJson(const Experiment& experiment);
// {"type": ..., and the partitioner's own fields}; {"type": "none"} without one.
Json partitionerToJson(const PartitionerSpec& partitioner);
// An absolute path for a path written in the experiment (relative to its directory; "~/"
// is the user's home).
std::string resolvePath(const Experiment& experiment, const std::string& path);

} // namespace strata::schema
