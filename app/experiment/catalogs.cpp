#include "app/experiment/catalogs.h"

#include "app/experiment/json_variant.h"

#include "strata/schema/defaults.h"
#include "strata/schema/experiment.h"
#include "strata/schema/layer_spec.h"

#include <QCoreApplication>

#include <variant>

namespace strata::app {

namespace {
QStringList qlist(const std::vector<std::string>& names)
{
    QStringList out;
    for (const auto& n : names)
        out << QString::fromStdString(n);
    return out;
}

FieldInfo::Kind kindOf(schema::FieldKind k)
{
    switch (k) {
    case schema::FieldKind::Integer: return FieldInfo::Kind::Integer;
    case schema::FieldKind::Number: return FieldInfo::Kind::Number;
    case schema::FieldKind::Boolean: return FieldInfo::Kind::Boolean;
    case schema::FieldKind::Choice: return FieldInfo::Kind::Choice;
    case schema::FieldKind::IntPair: return FieldInfo::Kind::IntPair;
    case schema::FieldKind::OptionalIntPair: return FieldInfo::Kind::OptionalIntPair;
    case schema::FieldKind::OptionalInteger: return FieldInfo::Kind::OptionalInteger;
    case schema::FieldKind::Regularizer: return FieldInfo::Kind::Regularizer;
    case schema::FieldKind::IntList: return FieldInfo::Kind::IntList;
    case schema::FieldKind::OptionalDimList: return FieldInfo::Kind::OptionalDimList;
    case schema::FieldKind::Padding2D: return FieldInfo::Kind::Padding2D;
    }
    return FieldInfo::Kind::Integer;
}
} // namespace

QList<LayerTypeInfo> layerTypes()
{
    QList<LayerTypeInfo> out;
    for (const auto& t : schema::layerTypes()) {
        LayerTypeInfo info{QString::fromStdString(t.type), QString::fromStdString(t.description), {}};
        for (const auto& f : t.fields)
            info.fields.push_back({QString::fromStdString(f.name), kindOf(f.kind), toVariant(f.defaultValue), f.required,
                                   f.min, f.max, f.exclusiveMin, f.exclusiveMax, qlist(f.choices),
                                   QString::fromStdString(f.help)});
        out.push_back(info);
    }
    return out;
}

const LayerTypeInfo* findLayerType(const QList<LayerTypeInfo>& types, const QString& type)
{
    for (const auto& t : types)
        if (t.type == type)
            return &t;
    return nullptr;
}

QList<StrategyInfo> strategies()
{
    // Descriptions and best uses from the seed documents (their summary tables).
    return {
        {"Default", "Default strategy (tf.distribute.get_strategy())",
         "No distribution: trains on the one available device.", "Simple setups and debugging.", true, {}},
        {"OneDevice", "OneDeviceStrategy", "Places all computation on one chosen device.",
         "Debugging or testing on a specific device.", true, {}},
        {"Mirrored", "MirroredStrategy", "Synchronous training with a copy of the model on each device of one machine.",
         "Single-machine multi-GPU (here: multi-core) training.", true, {}},
        {"MultiWorkerMirrored", "MultiWorkerMirroredStrategy",
         "Extends Mirrored to several machines, synchronizing across all of their devices.",
         "Synchronous training across multiple machines.", true,
         "Runs the cluster's chief and worker tasks (and its evaluator) as processes on their nodes: this "
         "machine directly, other machines over SSH (Cluster page: Check nodes tries them first)."},
        {"ParameterServer", "ParameterServerStrategy",
         "Variables on parameter servers; workers compute and update them asynchronously.",
         "Large-scale asynchronous training.", true,
         "Runs the cluster's chief (the coordinator: it schedules the steps, evaluates and writes checkpoints), "
         "workers and ps tasks as processes on their nodes, as MultiWorkerMirrored's; the workers' updates may "
         "be stale (staleness bound below)."},
        {"CentralStorage", "CentralStorageStrategy",
         "Variables kept once on one device (the CPU); computation mirrored across the other devices.",
         "When device memory is limited.", true, {}},
        {"TPU", "TPUStrategy", "Training on Google Cloud TPUs.", "Large-scale TPU training.", false,
         "There is no TPU on this machine and Strata has no TPU runtime. Declare a fallback to Mirrored (as the "
         "seeds' CIFAR-10 example does) to train under MirroredStrategy instead."},
    };
}

bool isMultiProcess(std::string_view strategyType)
{
    return strategyType == "MultiWorkerMirrored" || strategyType == "ParameterServer";
}

QStringList lossNames() { return qlist(schema::lossNames()); }
QStringList optimizerNames() { return qlist(schema::optimizerNames()); }
QStringList dataSourceNames() { return qlist(schema::dataSourceNames()); }
QStringList metricNames() { return {"accuracy", "mae", "mse"}; }
qint64 defaultBucketBytes() { return schema::kDefaultBucketBytes; }

QVariant fieldDefault(const QString& pointer, const QString& when)
{
    QStringList names;
    for (const QString& name : pointer.split('/', Qt::SkipEmptyParts)) {
        bool index = false;
        name.toInt(&index);
        if (!index)
            names << name;
    }
    const schema::FieldDefault* d = schema::findFieldDefault(names.join('.').toStdString(), when.toStdString());
    if (!d)
        return {};
    return std::visit(
        [](const auto& v) -> QVariant {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string_view>) {
                return QString::fromUtf8(v.data(), qsizetype(v.size()));
            } else if constexpr (std::is_same_v<T, std::span<const std::string_view>>) {
                QStringList list;
                for (std::string_view n : v)
                    list << QString::fromUtf8(n.data(), qsizetype(n.size()));
                return list;
            } else if constexpr (std::is_same_v<T, int64_t>) {
                return qint64(v);
            } else {
                return v;
            }
        },
        d->value);
}

QList<PartitionerInfo> partitioners()
{
    // The fields each needs filled (FixedShards' num_shards and MaxSize's max_shard_bytes are
    // required), with the engine's defaults where it has them.
    return {
        {{}, QCoreApplication::translate("strata", "None (each variable whole, placed round-robin)"), {}},
        {"FixedShards", QCoreApplication::translate("strata", "FixedShards (a fixed number of shards)"),
         {{"type", "FixedShards"}, {"num_shards", 2}}},
        {"MinSize", QCoreApplication::translate("strata", "MinSize (shards of at least a size, at most a count)"),
         {{"type", "MinSize"},
          {"min_shard_bytes", fieldDefault("/strategy/partitioner/min_shard_bytes")},
          {"max_shards", fieldDefault("/strategy/partitioner/max_shards", "MinSize")}}},
        {"MaxSize", QCoreApplication::translate("strata", "MaxSize (shards of at most a size)"),
         {{"type", "MaxSize"}, {"max_shard_bytes", 64 * 1024}}},
    };
}

} // namespace strata::app
