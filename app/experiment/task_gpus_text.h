#pragma once
// What the Cluster page says of a task's GPUs on its node: the share `train` will give it
// (schema/task_gpus.h) when several chief and worker tasks share a node or
// cluster.gpus_per_task is set. The node's GPU count is known only once Check nodes has run
// there (NodeReport::devices); before that the text says how the node's GPUs are shared.

#include "strata/schema/cluster_spec.h"

#include <QMap>
#include <QString>
#include <QStringList>

namespace strata::app {

// A node's GPUs, counted from what Check nodes found there ("gpu:0", "gpu:1", ...).
int gpuCount(const QStringList& devices);

// The text for `task` of `cluster` under `strategy`: "GPUs 2,3 (of 4)" when the task's node
// (by name) has a count in `nodeGpus`; before that "its share of the node's GPUs (1 of 3 tasks)"
// or "2 of the node's GPUs (gpus_per_task)"; "no GPU on its node", or what is wrong ("3 GPUs
// each for 2 tasks: the node has 4"). Empty when the task keeps whatever the node has: alone
// on its node with gpus_per_task 0, a ps or evaluator task, a strategy of one process.
QString taskGpusText(const schema::ClusterSpec& cluster, const QString& strategy, const QString& task,
                     const QMap<QString, int>& nodeGpus);

} // namespace strata::app
