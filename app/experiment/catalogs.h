#pragma once
// What the editors offer, in Qt types: layer types with their fields (from the engine's
// layer registry, so the editor and the engine agree), the strategies of the seeds with
// their descriptions and whether they run here, and the other choice lists.

#include <QList>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVariantMap>

#include <string_view>

namespace strata::app {

struct FieldInfo {
    // As the engine's schema::FieldKind (IntList: Reshape's target shape; OptionalDimList:
    // Dropout's noise shape; Padding2D: ZeroPadding2D's padding).
    enum class Kind {
        Integer,
        Number,
        Boolean,
        Choice,
        IntPair,
        OptionalIntPair,
        OptionalInteger,
        Regularizer,
        IntList,
        OptionalDimList,
        Padding2D
    };
    QString name;
    Kind kind = Kind::Integer;
    QVariant defaultValue; // invalid: none (required, or optional and absent)
    bool required = false;
    double min = 0, max = 0;
    bool exclusiveMin = false, exclusiveMax = false;
    QStringList choices;
    QString help;
};

struct LayerTypeInfo {
    QString type;
    QString description;
    QList<FieldInfo> fields;
};

QList<LayerTypeInfo> layerTypes();
const LayerTypeInfo* findLayerType(const QList<LayerTypeInfo>& types, const QString& type);

struct StrategyInfo {
    QString type;        // "Mirrored"
    QString title;       // "MirroredStrategy"
    QString description; // one line, from the seeds
    QString bestUse;     // the seeds' "best use case"
    bool runsHere = true;
    // Why it does not run in this version / on this machine; for one that runs, what it
    // cannot do yet (empty: nothing to say).
    QString whyNot;
};

QList<StrategyInfo> strategies();
// Whether a strategy's job is one process per task of the cluster, the tasks reaching each
// other at their cluster addresses (MultiWorkerMirrored, ParameterServer); the others train in
// one process.
bool isMultiProcess(std::string_view strategyType);

QStringList lossNames();
QStringList optimizerNames();
QStringList dataSourceNames();
QStringList metricNames();
// MultiWorkerMirrored's gradient bucket when the experiment names none (bytes).
qint64 defaultBucketBytes();
// What the engine uses for the field at `pointer` ("/training/epochs"; list indices are
// ignored: "/cluster/nodes/0/ssh_port") when the document does not write it, from the engine's
// table (strata/schema/defaults.h); `when`: the value of the setting the default depends on (the
// optimizer's type for its learning rate). Invalid when the table has no default for it.
QVariant fieldDefault(const QString& pointer, const QString& when = {});

// A ParameterServer partitioner (tf.distribute.experimental.partitioners) as the Strategy page
// offers it: `type` empty for none (the field absent).
struct PartitionerInfo {
    QString type;
    QString title;
    QVariantMap initial; // the `strategy.partitioner` object a new choice writes
};
QList<PartitionerInfo> partitioners();

} // namespace strata::app
