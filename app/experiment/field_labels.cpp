#include "app/experiment/field_labels.h"

#include <QCoreApplication>
#include <QHash>
#include <QRegularExpression>
#include <QStringList>

namespace strata::app {

namespace {

using Json = nlohmann::ordered_json;

QString tr(const char* text) { return QCoreApplication::translate("FieldLabels", text); }

// Keyed by the path with its list indices left out ("cluster.nodes[].host").
const QHash<QString, QString>& titles()
{
    static const QHash<QString, QString> table{
        {"strategy.type", tr("Strategy")},
        {"strategy.device", tr("Device")},
        {"strategy.compute_devices", tr("Compute devices")},
        {"strategy.parameter_device", tr("Parameter device")},
        {"strategy.cross_device_ops", tr("Gradient reduction")},
        {"strategy.bucket_bytes", tr("Gradient bucket size")},
        {"strategy.timeout_seconds", tr("Timeout")},
        {"strategy.startup_timeout_seconds", tr("Start-up allowance")},
        {"strategy.fallback", tr("Fallback")},
        {"strategy.partitioner", tr("Partitioner")},
        {"strategy.partitioner.num_shards", tr("Shards")},
        {"strategy.partitioner.min_shard_bytes", tr("Smallest shard")},
        {"strategy.partitioner.max_shard_bytes", tr("Largest shard")},
        {"strategy.partitioner.max_shards", tr("At most")},
        {"strategy.max_staleness", tr("Staleness")},
        {"strategy.logical_cpu_devices", tr("Logical CPU devices")},
        {"strategy.logical_gpu_devices", tr("Logical GPU devices")},
        {"cluster.nodes", tr("Nodes")},
        {"cluster.nodes[].name", tr("Name")},
        {"cluster.nodes[].host", tr("Host")},
        {"cluster.nodes[].ssh_port", tr("SSH port")},
        {"cluster.nodes[].user", tr("User")},
        {"cluster.nodes[].auth", tr("Auth")},
        {"cluster.nodes[].key_file", tr("Key file")},
        {"cluster.nodes[].engine", tr("Engine path")},
        {"cluster.nodes[].work_dir", tr("Work directory")},
        {"cluster.tasks", tr("Task assignment")},
        {"cluster.tasks[].type", tr("Task type")},
        {"cluster.tasks[].node", tr("Node")},
        {"cluster.tasks[].count", tr("Count")},
        {"cluster.tasks[].port", tr("First port")},
        {"cluster.stop_unattended_seconds", tr("Stop the job when no Strata follows it for")},
        {"cluster.slurm", tr("Slurm job")},
        {"cluster.slurm.jobs", tr("Tasks by type")},
        {"cluster.slurm.port_base", tr("First port")},
        {"cluster.slurm.login", tr("Login node")},
        {"cluster.slurm.partition", tr("Partition")},
        {"cluster.slurm.nodes", tr("Nodes")},
        {"cluster.slurm.tasks_per_node", tr("Tasks per node")},
        {"cluster.slurm.cpus_per_task", tr("CPUs per task")},
        {"cluster.slurm.gpus_per_task", tr("GPUs per task")},
        {"cluster.slurm.time_limit", tr("Time limit")},
        {"cluster.slurm.account", tr("Account")},
        {"cluster.slurm.qos", tr("QoS")},
        {"cluster.slurm.extra_sbatch", tr("Extra #SBATCH lines")},
        {"cluster.slurm.requeue", tr("Requeue when preempted")},
        {"cluster.slurm.signal_seconds", tr("Warn before the end")},
        {"cluster.gpus_per_task", tr("GPUs per task")},
        {"model.input_shape", tr("Input shape")},
        {"data.source", tr("Dataset")},
        {"data.source.type", tr("Source")},
        {"data.source.dir", tr("Directory")},
        {"data.source.train_images", tr("Training images")},
        {"data.source.train_labels", tr("Training labels")},
        {"data.source.test_images", tr("Test images")},
        {"data.source.test_labels", tr("Test labels")},
        {"data.source.train", tr("Training text")},
        {"data.source.test", tr("Test text")},
        {"data.source.vocab_size", tr("Vocabulary size")},
        {"data.source.max_length", tr("Sequence length")},
        {"data.source.task", tr("Task")},
        {"data.source.samples", tr("Training examples")},
        {"data.source.test_samples", tr("Test examples")},
        {"data.source.features", tr("Features")},
        {"data.source.classes", tr("Classes")},
        {"data.source.noise", tr("Noise")},
        {"data.validation", tr("Validation")},
        {"data.validation_split", tr("Validation split")},
        {"data.shuffle", tr("Shuffle")},
        {"data.prefetch", tr("Prefetch (batches)")},
        {"data.shard_policy", tr("Shard policy")},
        {"data.evaluate_test", tr("Test")},
        {"data.train_limit", tr("Training examples")},
        {"data.test_limit", tr("Test examples")},
        {"training.epochs", tr("Epochs")},
        {"training.batch_size", tr("Batch size per replica")},
        {"training.steps_per_epoch", tr("Steps per epoch")},
        {"training.threads", tr("GEMM threads per replica")},
        {"seed", tr("Seed")},
        {"training.loss", tr("Loss")},
        {"training.metrics", tr("Metrics")},
        {"training.optimizer", tr("Optimizer")},
        {"training.optimizer.learning_rate", tr("Learning rate")},
        {"training.lr_scaling", tr("Scaling rule")},
        {"training.checkpoint", tr("Checkpoints")},
        {"training.checkpoint.every_epochs", tr("Every N epochs")},
        {"training.checkpoint.every_steps", tr("Every N steps")},
    };
    return table;
}

QString pageOf(const QString& section)
{
    static const QHash<QString, QString> pages{{"strategy", tr("Strategy")}, {"cluster", tr("Cluster")},
                                               {"model", tr("Model")},       {"data", tr("Data")},
                                               {"training", tr("Training")}, {"seed", tr("Training")}};
    return pages.value(section);
}

// The device lists are labelled by what the strategy does with them.
QString devicesTitle(const Json& document)
{
    const Json strategy = document.is_object() ? document.value("strategy", Json()) : Json();
    const Json type = strategy.is_object() ? strategy.value("type", Json()) : strategy;
    if (type == "MultiWorkerMirrored")
        return tr("Devices of each worker");
    if (type == "TPU")
        return tr("Fallback devices");
    return tr("Replica devices");
}

QString textOf(const Json& element, const char* key)
{
    const auto it = element.is_object() ? element.find(key) : element.end();
    return it != element.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

// A list element by its 1-based number and what it is.
QString elementTitle(const QString& list, int index, const Json& element)
{
    const int number = index + 1;
    if (list == QLatin1String("model.layers")) {
        const QString type = textOf(element, "type");
        return type.isEmpty() ? tr("layer %1").arg(number) : tr("layer %1 (%2)").arg(number).arg(type);
    }
    const QString what = textOf(element, list == QLatin1String("cluster.nodes") ? "name" : "type");
    const QString noun = list == QLatin1String("cluster.nodes")   ? tr("node %1")
                         : list == QLatin1String("cluster.tasks") ? tr("row %1")
                                                                  : tr("entry %1");
    return what.isEmpty() ? noun.arg(number) : QStringLiteral("%1 (%2)").arg(noun.arg(number), what);
}

} // namespace

QString fieldTitle(const QString& path)
{
    static const QRegularExpression index("\\[\\d+\\]");
    return titles().value(QString(path).replace(index, QStringLiteral("[]")));
}

QString fieldLabel(const QString& path, const Json& document)
{
    // "model.layers[1].units" -> model, layers, [1], units
    static const QRegularExpression segment("([^.\\[\\]]+)|\\[(\\d+)\\]");
    QStringList parts;
    QString key; // the path so far, indices left out
    const Json* at = &document;
    Json none;
    auto it = segment.globalMatch(path);
    QString section;
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        const bool last = !it.hasNext();
        if (m.capturedLength(2) > 0) {
            const int index = m.captured(2).toInt();
            const Json* element = at->is_array() && index < int(at->size()) ? &(*at)[size_t(index)] : &none;
            if (key.startsWith("strategy.") && key.endsWith("devices"))
                parts << tr("device %1").arg(index + 1);
            else
                parts << elementTitle(key, index, *element);
            at = element;
            key += QStringLiteral("[]");
            continue;
        }
        const QString name = m.captured(1);
        if (section.isEmpty()) {
            section = name;
            key = name;
            if (pageOf(section).isEmpty())
                return path;
            parts << pageOf(section);
        } else {
            key += '.' + name;
        }
        const std::string member = name.toStdString();
        at = at->is_object() && at->contains(member) ? &(*at)[member] : &none;
        QString title = key == QLatin1String("strategy.devices") ? devicesTitle(document) : fieldTitle(key);
        if (key == section && key != QLatin1String("seed"))
            continue; // the page alone
        if (title.isEmpty() && last)
            title = name;
        if (!title.isEmpty() && title != parts.back()) // "strategy.type": the Strategy page
            parts << title;
    }
    return parts.join(QStringLiteral(": "));
}

QString fieldPath(const QString& pointer)
{
    QString out;
    for (const QString& part : pointer.split('/', Qt::SkipEmptyParts)) {
        bool number = false;
        part.toInt(&number);
        if (number)
            out += QStringLiteral("[%1]").arg(part);
        else
            out += (out.isEmpty() ? QString() : QStringLiteral(".")) + part;
    }
    return out;
}

} // namespace strata::app
