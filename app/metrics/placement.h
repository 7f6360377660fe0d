#pragma once
// A run's placement (from its `placement` events) and task states, in Qt types for the
// dashboard's views. Under MultiWorkerMirrored every training task reports its own
// placement: its local replicas, and the job it belongs to (every task, the total replicas,
// the cross-worker reduction in buckets). Under ParameterServer the coordinator reports the
// job's: the ps and worker tasks, the partitioner, and each variable's shards on the ps tasks.

#include "app/metrics/metrics_store.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace strata::app {

struct PlacementReplica {
    int replica = 0;
    QString device;
    int threads = 1;
};

// A part of a variable held by one parameter server (rows [firstRow, endRow) of its first axis).
struct PlacementShard {
    QString name;      // "dense/kernel/part_0"
    QString ps;        // "ps:0"
    qint64 firstRow = 0, endRow = 0;
    qint64 bytes = 0;
};

struct PlacementVariable {
    QString name;
    QString shape;     // "(784, 128)"
    qint64 bytes = 0;  // one copy
    QStringList devices;
    QList<PlacementShard> shards; // ParameterServer: empty for a variable not partitioned
};

struct TaskPlacement {
    QString task;
    QString place; // where it runs: "node (host)" (task_places.h), else what the engine calls its host
    QString host;  // what the engine calls its host
    QString strategy;
    QString requestedStrategy; // when a fallback trains instead
    QList<PlacementReplica> replicas;
    QList<PlacementVariable> variables;
    QString reduction;         // the algorithm
    QString crossDeviceOps;    // Mirrored: "all_reduce" or "reduce_to_one_device"
    qint64 reductionBytes = 0; // per step
    qint64 bucketBytes = 0, buckets = 0; // the gradients reduced in `buckets` of up to `bucketBytes` (MWMS)
    // bucket_bytes "auto" (MWMS): "tuning" while candidates are measured, "tuned" once one is
    // kept (its algorithm in tunedAllReduce, its score over the default's in tunedSpeedup),
    // "untuned" when the task ended before the decision; empty: fixed buckets.
    QString tuning;
    QString tunedAllReduce;
    double tunedSpeedup = 1;
    qint64 tuningCandidates = 0, tuningSteps = 0;
    // The synchronous job this task is part of (MultiWorkerMirrored): its training tasks in
    // rank order and the replicas of all of them; empty and 0 for a single-process strategy.
    QStringList jobTasks;
    qint64 totalReplicas = 0;
    qint64 globalBatch = 0, perReplicaBatch = 0;
    double learningRate = 0, scaledLearningRate = 0;
    QString scalingRule;
    // ParameterServer (the coordinator's placement): its tasks, the partitioner ("FixedShards
    // (num_shards 2)", "none") and the staleness bound (-1: asynchronous).
    QStringList psTasks, workerTasks;
    QString partitioner;
    qint64 maxStaleness = -1;
    QString parameterDevice; // CentralStorage: where the variables live
    // The node's GPUs this task may use, as its CUDA_VISIBLE_DEVICES lists them ("2,3": its
    // gpu:0 is the node's GPU 2), from its `hello`; empty: not set, every GPU of the node.
    QString visibleGpus;
};

struct TaskSummary {
    QString task;
    QString place; // as TaskPlacement::place
    TaskState state = TaskState::Starting;
    qint64 step = 0, totalSteps = 0; // a ps task: the updates it has applied, no total
    QString error;
    int exitCode = 0;
    bool crashed = false;
    bool exited = false;
    QString result; // "test accuracy 0.8759, loss 0.3420" for a completed task
    bool lost = false;  // lost_tasks.h: killed, crashed or named lost by a survivor
    QString lostReason; // "killed by signal 9; named lost by worker:0: connection lost ..."
    bool unreachable = false; // its node cannot be heard now (it may still run)
    QString unreachableWhy;
    QString scheduled; // what a batch scheduler says of it ("pending (Resources)"); empty: it runs
    // A ParameterServer worker as the coordinator last saw it: "training", "waiting" (held
    // back by the staleness bound), "lost"; empty: no word from a coordinator.
    QString coordinatorState;
    // The pace of its latest step window (a task that trains steps); -1 until it reports one.
    double stepMs = -1, samplesPerSec = -1;
    // A straggler now (stragglers.h: its time per step well above the other workers' median), and
    // its stretches so far, a line each (stretchText); empty: never one.
    bool straggling = false;
    QString straggler;
    bool operator==(const TaskSummary&) const = default;
};

// A device of a task as the node knows it: "gpu:1 (GPU 3)" for gpu:1 of a task whose
// CUDA_VISIBLE_DEVICES is "2,3"; `device` itself for a CPU, or when the task's GPUs are not
// restricted or the device is not among them (logical GPUs beyond the list). Logical GPUs
// (strategy.logical_gpu_devices) all live on the list's first; the placement does not say
// they are logical, so within the list's length they are shown as physical ones.
QString deviceOnNode(const QString& device, const QString& visibleGpus);
// "GPUs 2,3 of the node", "GPU 2 of the node"; empty for an empty list.
QString nodeGpusText(const QString& visibleGpus);

// Where a task runs: its node and host as the cluster names them (set by the launcher, or read
// from nodes.json), "b (198.18.1.2)", else what its engine calls the machine.
QString placeOf(const TaskData& t);
QList<TaskPlacement> placements(const MetricsStore& store);
// What tuning says of a task's buckets: "tuning buckets… (4 candidates, first 29 steps)", then
// "bucket 256 KiB, chunked ring (tuned)"; empty when they are fixed.
QString tuningText(const TaskPlacement& placement);
// One task's placement from its `placement` event (`place`, `host`: where it runs).
TaskPlacement placementOf(const QString& task, const QString& place, const QString& host, const Json& placement);
QList<TaskSummary> taskSummaries(const MetricsStore& store);
QString stateName(TaskState state);
// What the task table says of a task: "unreachable" while its node cannot be heard, "lost" for
// a lost task, "waiting" for a running worker the staleness bound holds back, else its state's
// name.
QString stateText(const TaskSummary& task);
// The run's log from entry `from` on (events, warnings, errors of every task, in arrival order).
QList<LogEntry> logEntries(const MetricsStore& store, int from);

} // namespace strata::app
