#include "ui/dashboard/placement_tree.h"

#include "app/metrics/placement_map_groups.h"

#include <QHeaderView>
#include <QLocale>
#include <QMap>

namespace strata::ui {

namespace {
QString bytes(qint64 n) { return QLocale().formattedDataSize(n, 1, QLocale::DataSizeTraditionalFormat); }
} // namespace

PlacementTree::PlacementTree(QWidget* parent) : QTreeWidget(parent)
{
    setObjectName("placementTree");
    setHeaderLabels({tr("Placement"), tr("Detail"), tr("Size")});
    // Every column as wide as its values; a cell the view still cuts shows its text as a tooltip.
    header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    header()->setStretchLastSection(true);
}

void PlacementTree::forget()
{
    clear();
    m_shown.clear();
}

bool PlacementTree::refresh(const QList<app::TaskPlacement>& tasks, const QList<app::TaskSummary>& summaries)
{
    // Placement arrives once per task: rebuild only when it changed (keeps expansion state).
    QString key;
    for (const auto& t : tasks)
        key += t.task + t.place + t.strategy + QString::number(t.replicas.size()) + QString::number(t.variables.size()) +
               t.reduction + t.jobTasks.join(',') + t.visibleGpus + ';';
    for (const auto& t : summaries)
        key += t.task + t.place + ';';
    if (key == m_shown)
        return false;
    m_shown = key;
    clear();
    for (const auto& t : tasks) {
        QString strategy = t.strategy;
        if (!t.requestedStrategy.isEmpty() && t.requestedStrategy != t.strategy)
            strategy = tr("%1 (for %2)").arg(t.strategy, t.requestedStrategy);
        if (!t.jobTasks.isEmpty()) // one task of a synchronous job
            strategy = tr("%1: rank %2 of %3 tasks, %4 replica(s) in all")
                           .arg(strategy)
                           .arg(t.jobTasks.indexOf(t.task))
                           .arg(t.jobTasks.size())
                           .arg(t.totalReplicas);
        auto* task = new QTreeWidgetItem(this, {tr("%1 on %2").arg(t.task, t.place), strategy,
                                                tr("%1/step reduced").arg(bytes(t.reductionBytes))});
        task->setToolTip(0, tr("%1 runs on %2, which calls itself %3").arg(t.task, t.place, t.host));
        if (!t.visibleGpus.isEmpty()) { // its own GPUs of the node's (CUDA_VISIBLE_DEVICES)
            task->setText(0, tr("%1 on %2, %3").arg(t.task, t.place, app::nodeGpusText(t.visibleGpus)));
            task->setToolTip(0, tr("%1 runs on %2, which calls itself %3, with %4 (CUDA_VISIBLE_DEVICES=%5)")
                                    .arg(t.task, t.place, t.host, app::nodeGpusText(t.visibleGpus), t.visibleGpus));
        }
        task->setToolTip(1, tr("reduction: %1; global batch %2 (%3 per replica); learning rate %4 -> %5 (%6)")
                                .arg(t.reduction).arg(t.globalBatch).arg(t.perReplicaBatch)
                                .arg(t.learningRate).arg(t.scaledLearningRate).arg(t.scalingRule));
        QMap<QString, QTreeWidgetItem*> devices;
        for (const auto& r : t.replicas) {
            QTreeWidgetItem*& device = devices[r.device];
            if (!device)
                device = new QTreeWidgetItem(task, {app::deviceOnNode(r.device, t.visibleGpus), tr("device")});
            new QTreeWidgetItem(device, {tr("replica %1").arg(r.replica), tr("%n GEMM thread(s)", nullptr, r.threads)});
        }
        if (!t.reduction.isEmpty()) {
            auto* reduction = new QTreeWidgetItem(task, {tr("gradient reduction"), t.reduction,
                                                         tr("%1/step").arg(bytes(t.reductionBytes))});
            reduction->setToolTip(1, t.reduction);
            if (t.buckets > 0)
                reduction->setText(2, tr("%1/step in %n bucket(s) of up to %2", nullptr, int(t.buckets))
                                          .arg(bytes(t.reductionBytes), bytes(t.bucketBytes)));
            if (!t.jobTasks.isEmpty())
                new QTreeWidgetItem(reduction, {tr("across"), t.jobTasks.join(", ")});
            if (const QString tuning = app::tuningText(t); !tuning.isEmpty())
                new QTreeWidgetItem(reduction, {tr("buckets"), tuning});
        }
        if (!t.psTasks.isEmpty()) {
            new QTreeWidgetItem(task, {tr("parameter servers"), t.psTasks.join(", ")});
            new QTreeWidgetItem(task, {tr("workers"), t.workerTasks.join(", ")});
            new QTreeWidgetItem(task, {tr("partitioner"), t.partitioner.isEmpty() ? tr("none") : t.partitioner});
            new QTreeWidgetItem(task, {tr("staleness"), t.maxStaleness < 0 ? tr("asynchronous (no bound)")
                                                                             : tr("at most %1 step(s)").arg(t.maxStaleness)});
        }
        qint64 total = 0;
        auto* variables = new QTreeWidgetItem(task, {tr("variables"), tr("%n variable(s)", nullptr, t.variables.size())});
        for (const auto& v : t.variables) {
            auto* variable = new QTreeWidgetItem(variables, {v.name + ' ' + v.shape, v.devices.join(", "), bytes(v.bytes)});
            for (const auto& shard : v.shards)
                new QTreeWidgetItem(variable, {shard.name, tr("%1, rows %2..%3").arg(shard.ps).arg(shard.firstRow).arg(shard.endRow),
                                               bytes(shard.bytes)});
            total += v.bytes;
        }
        variables->setText(2, bytes(total));
        // Many tasks: a line each, opened one by one (64 opened would be thousands of lines).
        task->setExpanded(tasks.size() <= app::kMapWholeUpTo);
        for (auto* device : devices)
            device->setExpanded(true);
    }
    return true;
}

} // namespace strata::ui
