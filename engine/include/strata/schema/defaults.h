#pragma once
// What the engine uses for a field of the experiment that the document does not write: one
// table, read by the spec structs and readers here and by the app's setup pages (through
// app::fieldDefault), so that a page shows what a run will use. docs/experiment-schema.md
// describes the fields. A default that depends on another setting (the optimizer's learning
// rate on its type) has one row per value of that setting, and a row for any other.

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace strata::schema {

// A flag, an integer, a number, a text or a list of names.
using DefaultValue = std::variant<bool, int64_t, double, std::string_view, std::span<const std::string_view>>;

struct FieldDefault {
    std::string_view field; // the field's path in the document: "training.batch_size"
    std::string_view when;  // the setting it depends on has this value ("sgd"); empty: any other
    DefaultValue value;
};

inline constexpr std::string_view kDefaultMetrics[] = {"accuracy"};

// clang-format off
inline constexpr FieldDefault kFieldDefaults[] = {
    {"seed",                              "", int64_t{0}},

    {"strategy.type",                     "", std::string_view("OneDevice")},
    {"strategy.device",                   "", std::string_view("cpu:0")},
    {"strategy.cross_device_ops",         "", std::string_view("all_reduce")},
    {"strategy.parameter_device",         "", std::string_view("cpu:0")},
    // MultiWorkerMirrored's gradient bucket, measured (bench/README.md, "Buckets"): every
    // extra Gloo all-reduce costs about a millisecond over TCP between two processes here, and
    // 32 MiB is the smallest bucket whose all-reduce keeps 90% of Gloo's bandwidth on one call
    // over gradients of up to 64 MiB (16 MiB: 0.87-0.91 on 64 MiB); smaller buckets bought
    // nothing in the CNN's 2-worker training (2 or 3 buckets were 0-2% slower than 1).
    {"strategy.bucket_bytes",             "", int64_t{32} << 20},
    // By the strategy: how long a MultiWorkerMirrored worker waits for the others; how soon a
    // lost ParameterServer worker's steps move on, and a lost ps stops the job.
    {"strategy.timeout_seconds",          "ParameterServer", 3.0},
    {"strategy.timeout_seconds",          "", 10.0},
    // How long a multi-process job waits for every task to join at its start, apart from the
    // timeout above: 64 engines starting on busy hosts take far longer than a collective may
    // (torchrun waits up to 600 s to join, too).
    {"strategy.startup_timeout_seconds",  "", 600.0},
    {"strategy.fallback",                 "", std::string_view("")},
    {"strategy.max_staleness",            "", int64_t{-1}}, // asynchronous, TensorFlow's behaviour
    {"strategy.logical_cpu_devices",      "", int64_t{0}},  // one per core
    {"strategy.logical_gpu_devices",      "", int64_t{0}},  // the physical GPUs
    // By the partitioner's type.
    {"strategy.partitioner.min_shard_bytes", "", int64_t{256} << 10},
    {"strategy.partitioner.max_shards",   "MinSize", int64_t{1}},
    {"strategy.partitioner.max_shards",   "", int64_t{0}}, // MaxSize: no maximum

    {"cluster.nodes.ssh_port",            "", int64_t{22}},
    {"cluster.tasks.type",                "", std::string_view("worker")},
    {"cluster.tasks.count",               "", int64_t{1}},
    {"cluster.tasks.port",                "", int64_t{0}},  // automatic
    {"cluster.stop_unattended_seconds",   "", int64_t{0}},  // never
    {"cluster.shared_run_dir",            "", false},
    // The GPUs each chief or worker gets on its node (task_gpus.h); 0: the node's GPUs divided
    // evenly among the tasks using them, as TensorFlow's SlurmClusterResolver divides them.
    {"cluster.gpus_per_task",             "", int64_t{0}},
    // cluster.slurm: TensorFlow's SlurmClusterResolver defaults (port_base 8888; gpus_per_task 0:
    // its default, the node's GPUs shared evenly), then what the app's Slurm launcher passes to
    // sbatch (empty: Slurm's own default).
    {"cluster.slurm.port_base",           "", int64_t{8888}},
    {"cluster.slurm.gpus_per_task",       "", int64_t{0}},
    {"cluster.slurm.login",               "", std::string_view("local")},
    {"cluster.slurm.partition",           "", std::string_view("")},
    {"cluster.slurm.nodes",               "", int64_t{1}},
    {"cluster.slurm.tasks_per_node",      "", int64_t{1}},
    {"cluster.slurm.cpus_per_task",       "", int64_t{1}},
    {"cluster.slurm.time_limit",          "", std::string_view("")},
    {"cluster.slurm.account",             "", std::string_view("")},
    {"cluster.slurm.qos",                 "", std::string_view("")},
    {"cluster.slurm.requeue",             "", true},
    // Slurm sends SIGTERM this long before the time limit: a checkpoint, then `stopped`.
    {"cluster.slurm.signal_seconds",      "", int64_t{60}},

    // By the source's type; Debian's dataset packages install here (dataset-fashion-mnist).
    {"data.source.dir",                   "fashion_mnist", std::string_view("/usr/share/datasets/fashion-mnist")},
    {"data.source.normalize",             "", true},
    {"data.source.vocab_size",            "", int64_t{10000}},
    {"data.source.max_length",            "", int64_t{250}},
    {"data.source.task",                  "", std::string_view("regression")},
    {"data.source.samples",               "", int64_t{1000}},
    {"data.source.test_samples",          "", int64_t{200}},
    {"data.source.features",              "", int64_t{10}},
    {"data.source.classes",               "", int64_t{2}},
    // By the task: class centres are drawn with spread 2, so unit noise lets neighbouring
    // classes overlap where 0.1 would make them trivially separable.
    {"data.source.noise",                 "classification", 1.0},
    {"data.source.noise",                 "", 0.1},
    {"data.validation",                   "", std::string_view("none")},
    {"data.validation_split",             "", 0.0},
    {"data.shuffle",                      "", true},
    {"data.prefetch",                     "", int64_t{2}},
    {"data.shard_policy",                 "", std::string_view("AUTO")},
    {"data.evaluate_test",                "", true},
    {"data.train_limit",                  "", int64_t{0}},  // all
    {"data.test_limit",                   "", int64_t{0}},

    {"training.epochs",                   "", int64_t{1}},
    {"training.batch_size",               "", int64_t{32}},
    {"training.steps_per_epoch",          "", int64_t{0}},  // one pass over the data
    {"training.threads",                  "", int64_t{0}},  // the cores divided among the replicas
    {"training.lr_scaling",               "", std::string_view("none")},
    {"training.precision",                "", std::string_view("float32")},
    {"training.initial_weights",          "", std::string_view("")},
    {"training.metrics",                  "", std::span<const std::string_view>(kDefaultMetrics)},
    {"training.loss.type",                "", std::string_view("sparse_categorical_crossentropy")},
    {"training.loss.from_logits",         "", false},
    // Keras' defaults, by the optimizer's type: SGD 0.01, Adam and RMSprop 0.001.
    {"training.optimizer.type",           "", std::string_view("adam")},
    {"training.optimizer.learning_rate",  "sgd", 0.01},
    {"training.optimizer.learning_rate",  "", 0.001},
    {"training.optimizer.momentum",       "", 0.0},
    {"training.optimizer.nesterov",       "", false},
    {"training.optimizer.beta_1",         "", 0.9},
    {"training.optimizer.beta_2",         "", 0.999},
    {"training.optimizer.epsilon",        "", 1e-7},
    {"training.optimizer.rho",            "", 0.9},
    {"training.optimizer.centered",       "", false},
    {"training.checkpoint.enabled",       "", true},
    {"training.checkpoint.every_steps",   "", int64_t{0}},  // not by steps
    {"training.checkpoint.every_epochs",  "", int64_t{1}},
};
// clang-format on

// The row for `field` when its setting has the value `when`, else its row for any other;
// nullptr when the table has no default for `field`.
constexpr const FieldDefault* findFieldDefault(std::string_view field, std::string_view when = {})
{
    const FieldDefault* any = nullptr;
    for (const FieldDefault& d : kFieldDefaults) {
        if (d.field != field)
            continue;
        if (!when.empty() && d.when == when)
            return &d;
        if (d.when.empty())
            any = &d;
    }
    return any;
}

// The default as the engine's code reads it, at compile time: a field missing from the table,
// or of another kind, does not compile.
template<typename T>
consteval T fieldDefault(std::string_view field, std::string_view when = {})
{
    const FieldDefault* d = findFieldDefault(field, when);
    if (!d)
        throw "no default for this field in kFieldDefaults";
    return std::get<T>(d->value);
}

consteval int64_t defaultInteger(std::string_view field, std::string_view when = {})
{
    return fieldDefault<int64_t>(field, when);
}
consteval double defaultNumber(std::string_view field, std::string_view when = {})
{
    return fieldDefault<double>(field, when);
}
consteval bool defaultFlag(std::string_view field, std::string_view when = {})
{
    return fieldDefault<bool>(field, when);
}
consteval std::string_view defaultText(std::string_view field, std::string_view when = {})
{
    return fieldDefault<std::string_view>(field, when);
}
consteval std::span<const std::string_view> defaultNames(std::string_view field, std::string_view when = {})
{
    return fieldDefault<std::span<const std::string_view>>(field, when);
}

inline std::vector<std::string> namesOf(std::span<const std::string_view> names)
{
    return {names.begin(), names.end()};
}

// The same at run time, for a setting whose value is known only then (the optimizer's type);
// std::logic_error for a field missing from the table.
template<typename T>
T defaultWhen(std::string_view field, std::string_view when)
{
    const FieldDefault* d = findFieldDefault(field, when);
    if (!d)
        throw std::logic_error("no default for " + std::string(field) + " in kFieldDefaults");
    return std::get<T>(d->value);
}

} // namespace strata::schema
