#pragma once
// The placement drawn as a picture (ui::PlacementMapView draws it): the hosts as boxes, the
// tasks on each, their devices and replicas (with each device's latest utilization and
// memory from the `device` events), the variables and where they live, and the path the
// gradients take. Every place that holds variables has a colour (PlacementMap::places):
// under ParameterServer the ps tasks, each holding its shards; under the other strategies
// the devices holding a copy (each replica's device for Mirrored and MultiWorkerMirrored, the
// parameter device for CentralStorage, the one device for OneDevice). Built from the same
// TaskPlacement data as the tree, so every strategy has one.
//
// The gradients' path, as arrows between boxes (`Gradients`: gradients on their way;
// `Back`: what comes back, the reduced gradients or the variables):
//   OneDevice, Default      none
//   Mirrored all_reduce     a ring through the task's devices
//   Mirrored reduce_to_one_device, MultiWorkerMirrored within a task
//                           a star onto the first device, and back to each
//   CentralStorage          a star onto the parameter device, the variables back to each replica
//   MultiWorkerMirrored     the above within each task, then a ring through the job's tasks
//   ParameterServer         each worker pushes its gradients to every ps task, pulls the variables

#include "app/metrics/placement.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace strata::app {

// A device's latest report (a `device` event), for the map.
struct DeviceUsage {
    QString task;   // "worker:0"
    QString device; // "cpu:0"
    double utilization = -1; // 0..1; -1: not reported
    qint64 variableBytes = -1;
    qint64 memoryUsedBytes = -1, memoryTotalBytes = -1; // a GPU's, where NVML reports them
    bool operator==(const DeviceUsage&) const = default;
};

// Every device's latest report in `store`.
QList<DeviceUsage> deviceUsage(const MetricsStore& store);

// Boxes are named by id: a task "worker:0", a device "worker:0/cpu:0".
struct MapDevice {
    QString id;
    QString name;         // "cpu:0"
    QString label;        // as the node knows it: "gpu:0 (GPU 2)" (deviceOnNode), else the name
    QStringList replicas; // "replica 0"
    int place = -1;       // index into PlacementMap::places when variables live here (its colour)
    qint64 variableBytes = 0; // what the placement puts here (one copy of each variable held)
    int variables = 0;        // how many variables live here
    DeviceUsage usage;        // latest report (utilization -1 until one arrives)
};

// A piece of a variable in one place: a shard on a ps task, or a copy on a device.
struct MapShard {
    QString variable; // "dense/kernel"
    QString name;     // "dense/kernel/part_0", or the variable's name when it is whole
    int place = -1;   // index into PlacementMap::places (its colour)
    qint64 bytes = 0;
};

struct MapTask {
    QString id;   // "ps:0"
    QString role; // chief, worker, ps, evaluator
    QList<MapDevice> devices;
    QList<MapShard> shards; // a ps task's
    int place = -1;         // a ps task's index in PlacementMap::places (its colour)
};

struct MapHost {
    QString place; // "local (localhost)"
    QList<MapTask> tasks;
};

struct MapVariable {
    QString name;
    QString shape;
    qint64 bytes = 0;
    // Where it lives: ParameterServer's shards in row order (the whole variable on one ps
    // when not partitioned), else a copy per device holding one.
    QList<MapShard> pieces;
    bool copies = false; // the pieces are copies (each the whole variable), not shards
};

struct MapArrow {
    enum class Kind { Gradients, Back };
    QString from, to; // box ids
    Kind kind = Kind::Gradients;
};

struct PlacementMap {
    QString strategy;
    QString reduction; // the algorithm, as the engine words it
    qint64 reductionBytes = 0;
    QString path;      // what the arrows show, in words
    QList<MapHost> hosts;
    QList<MapVariable> variables;
    QList<MapArrow> arrows; // the gradients' path
    QStringList psTasks;    // ParameterServer's ps tasks
    QStringList places;     // the boxes variables live in, in colour order
    bool empty() const { return hosts.isEmpty(); }
};

// From a run's placements, task table (taskSummaries(): every task and where it runs) and
// devices' latest reports.
PlacementMap placementMap(const QList<TaskPlacement>& placements, const QList<TaskSummary>& tasks,
                          const QList<DeviceUsage>& usage = {});

} // namespace strata::app
