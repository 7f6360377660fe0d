#include "app/experiment/task_gpus_text.h"

#include "strata/core/error.h"
#include "strata/schema/task_gpus.h"

#include <QCoreApplication>

namespace strata::app {

namespace {
QString tr(const char* text, int n = -1) { return QCoreApplication::translate("strata", text, nullptr, n); }
} // namespace

int gpuCount(const QStringList& devices)
{
    int n = 0;
    for (const QString& d : devices)
        n += d.startsWith(QLatin1String("gpu:")) ? 1 : 0;
    return n;
}

QString taskGpusText(const schema::ClusterSpec& cluster, const QString& strategy, const QString& task,
                     const QMap<QString, int>& nodeGpus)
{
    if (!schema::runsAsTasks(strategy.toStdString()))
        return {};
    const std::string name = task.toStdString();
    schema::GpuShare share;
    QString node;
    try {
        share = schema::gpuShare(cluster, name);
        for (const schema::TaskAddress& a : schema::taskAddresses(cluster))
            if (a.name() == name)
                node = QString::fromStdString(a.node);
    } catch (const Error&) { // a cluster with problems: validation names them
        return {};
    }
    const int64_t perTask = cluster.gpusPerTask;
    if (share.sharing == 0 || (share.sharing == 1 && perTask == 0))
        return {};
    const auto known = nodeGpus.find(node);
    if (known == nodeGpus.end())
        return perTask > 0 ? tr("%n of the node's GPUs (gpus_per_task)", int(perTask))
                           : tr("its share of the node's GPUs (1 of %1 tasks)").arg(share.sharing);
    try {
        const auto ids = schema::taskCudaVisibleDevices(cluster, name, *known);
        if (!ids)
            return tr("no GPU on its node");
        const QString list = QString::fromStdString(*ids);
        return (list.contains(QLatin1Char(',')) ? tr("GPUs %1 (of %2)") : tr("GPU %1 (of %2)")).arg(list).arg(*known);
    } catch (const ConfigError&) {
        return tr("%1 GPUs each for %2 tasks: the node has %3").arg(perTask).arg(share.sharing).arg(*known);
    }
}

} // namespace strata::app
