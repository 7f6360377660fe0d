#include "app/compare/field_labels.h"

#include <QCoreApplication>
#include <QHash>
#include <QRegularExpression>
#include <QStringList>

namespace strata::app {

namespace {

const char* const kContext = "strata::app::FieldLabels";

QString tr(const char* text) { return QCoreApplication::translate(kContext, text); }

// The pages' labels, by path with list indices left out ("cluster.nodes[].host").
const QHash<QString, const char*>& fieldLabels()
{
    static const QHash<QString, const char*> labels{
        {"strata", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Format version")},
        {"seed", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: seed")},
        {"strategy", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy")},
        {"strategy.type", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: type")},
        {"strategy.device", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: device")},
        {"strategy.devices", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: replica devices")},
        {"strategy.compute_devices", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: compute devices")},
        {"strategy.parameter_device", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: parameter device")},
        {"strategy.cross_device_ops", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: gradient reduction")},
        {"strategy.logical_cpu_devices", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: logical CPU devices")},
        {"strategy.logical_gpu_devices", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: logical GPU devices")},
        {"strategy.bucket_bytes", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: gradient bucket size")},
        {"strategy.timeout_seconds", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: timeout (s)")},
        {"strategy.max_staleness", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: staleness")},
        {"strategy.partitioner", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: partitioner")},
        {"strategy.partitioner.type", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: partitioner")},
        {"strategy.fallback", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Strategy: fallback")},
        {"cluster", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Cluster")},
        {"cluster.nodes", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Cluster: nodes")},
        {"cluster.tasks", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Cluster: tasks")},
        {"model", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Model")},
        {"model.input_shape", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Model: input shape")},
        {"model.layers", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Model: layers")},
        {"data", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data")},
        {"data.source", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: source")},
        {"data.source.type", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: source")},
        {"data.source.dir", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: directory")},
        {"data.source.train_images", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: training images")},
        {"data.source.train_labels", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: training labels")},
        {"data.source.test_images", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: test images")},
        {"data.source.test_labels", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: test labels")},
        {"data.source.train", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: training text")},
        {"data.source.test", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: test text")},
        {"data.source.vocab_size", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: vocabulary size")},
        {"data.source.max_length", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: sequence length")},
        {"data.validation", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: validation")},
        {"data.validation_split", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: validation split")},
        {"data.shuffle", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: shuffle")},
        {"data.prefetch", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: prefetch (batches)")},
        {"data.shard_policy", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: shard policy")},
        {"data.evaluate_test", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: evaluate on the test split")},
        {"data.train_limit", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: training examples")},
        {"data.test_limit", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Data: test examples")},
        {"training", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training")},
        {"training.epochs", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: epochs")},
        {"training.batch_size", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: batch size per replica")},
        {"training.steps_per_epoch", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: steps per epoch")},
        {"training.threads", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: GEMM threads per replica")},
        {"training.loss", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: loss")},
        {"training.loss.type", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: loss")},
        {"training.loss.from_logits", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: loss from logits")},
        {"training.metrics", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: metrics")},
        {"training.optimizer", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: optimizer")},
        {"training.optimizer.type", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: optimizer")},
        {"training.optimizer.learning_rate", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: learning rate")},
        {"training.lr_scaling", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: scaling rule")},
        {"training.checkpoint", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: checkpoints")},
        {"training.checkpoint.enabled", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: checkpoints")},
        {"training.checkpoint.every_epochs", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: checkpoint every N epochs")},
        {"training.checkpoint.every_steps", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: checkpoint every N steps")},
        {"training.precision", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: precision")},
        {"training.initial_weights", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "Training: initial weights")},
    };
    return labels;
}

// How an item of a list is named, by the list's path: "node 2", "layer 3".
const QHash<QString, const char*>& itemNames()
{
    static const QHash<QString, const char*> names{
        {"cluster.nodes", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "node %1")},
        {"cluster.tasks", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "task row %1")},
        {"model.layers", QT_TRANSLATE_NOOP("strata::app::FieldLabels", "layer %1")},
    };
    return names;
}

QString words(QString key) { return key.replace('_', ' '); }

} // namespace

QString experimentFieldLabel(const QString& path, const QString& layerType)
{
    // "model.layers[1].units": the parts "model", "layers[1]", "units".
    static const QRegularExpression indexed(QStringLiteral(R"(^(.*)\[(\d+)\]$)"));
    QString generic;          // the path without indices, as fieldLabels() keys it
    QStringList unlabelled;   // the words after the longest labelled prefix
    QString label;            // that prefix's label, items named
    for (const QString& part : path.split('.')) {
        const QRegularExpressionMatch m = indexed.match(part);
        const QString key = m.hasMatch() ? m.captured(1) : part;
        generic += (generic.isEmpty() ? QString() : QStringLiteral(".")) + key;
        QString item;
        if (m.hasMatch()) {
            const char* name = itemNames().value(generic);
            const int number = m.captured(2).toInt() + 1;
            item = name ? tr(name).arg(number) : QStringLiteral("%1 %2").arg(words(key)).arg(number);
            if (generic == QLatin1String("model.layers") && !layerType.isEmpty())
                item += QStringLiteral(" (%1)").arg(layerType);
        }
        if (const char* known = fieldLabels().value(generic)) {
            label = tr(known);
            unlabelled.clear();
            if (!item.isEmpty()) {
                // "Cluster: nodes" names the list; its items read "Cluster: node 2".
                label = label.left(label.indexOf(':') + 1);
                unlabelled << item;
            }
            continue;
        }
        unlabelled << (item.isEmpty() ? words(key) : item);
    }
    if (label.isEmpty()) // an unknown section: its path's words
        return unlabelled.join(' ');
    if (unlabelled.isEmpty())
        return label;
    // "Training: optimizer" + "beta 1"; a section's own title takes a colon: "Strategy: foo".
    return label + (label.contains(':') ? QStringLiteral(" ") : QStringLiteral(": ")) + unlabelled.join(' ');
}

} // namespace strata::app
