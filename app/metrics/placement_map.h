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
//
// Many alike are drawn as one (placement_map_groups.h): hosts whose tasks are alike, and tasks
// alike on a host, each as a group a click opens; a task that stands out (failed, lost,
// unreachable) is never inside a group.

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
    bool operator==(const MapDevice&) const = default;
};

// A piece of a variable in one place: a shard on a ps task, or a copy on a device.
struct MapShard {
    QString variable; // "dense/kernel"
    QString name;     // "dense/kernel/part_0", or the variable's name when it is whole
    int place = -1;   // index into PlacementMap::places (its colour)
    qint64 bytes = 0;
    bool operator==(const MapShard&) const = default;
};

struct MapTask {
    QString id;   // "ps:0"
    QString role; // chief, worker, ps, evaluator
    QList<MapDevice> devices;
    QList<MapShard> shards; // a ps task's
    int place = -1;         // a ps task's index in PlacementMap::places (its colour)
    // What makes it stand out, as the task table says it ("failed", "lost", "unreachable");
    // empty: nothing. `failure`: failed or lost (else a warning: its node cannot be heard).
    QString alert;
    bool failure = false;
    bool operator==(const MapTask&) const = default;
};

// Tasks alike drawn as one box (placement_map_groups.h): on a host, or on each host of a group.
struct MapTaskGroup {
    QString id;       // its first task's, "tasks worker:0": a view keeps it open across updates
    QStringList tasks; // in the map's order; one: a task like no other
    QString title;    // "4 workers: worker:0-3"; on each host of a group "4 workers each"
    bool operator==(const MapTaskGroup&) const = default;
};

struct MapHost {
    QString place; // "local (localhost)"
    QList<MapTask> tasks;
    QList<MapTaskGroup> groups; // its tasks alike, every task in one, in the order of their first
    bool operator==(const MapHost&) const = default;
};

// Hosts alike (their tasks alike one for one) drawn as one box.
struct MapHostGroup {
    QString id;        // its first host's, "hosts node-1 (198.18.0.1)"
    QStringList hosts; // places, in the map's order; one: a host like no other
    QString title;     // "16 hosts: node-1 ... node-16"
    // Its hosts' tasks alike, each group's tasks those of all its hosts, titled as on each
    // ("4 workers each"): what the box shows.
    QList<MapTaskGroup> tasks;
    bool operator==(const MapHostGroup&) const = default;
};

struct MapVariable {
    QString name;
    QString shape;
    qint64 bytes = 0;
    // Where it lives: ParameterServer's shards in row order (the whole variable on one ps
    // when not partitioned), else a copy per device holding one.
    QList<MapShard> pieces;
    bool copies = false; // the pieces are copies (each the whole variable), not shards
    bool operator==(const MapVariable&) const = default;
};

struct MapArrow {
    enum class Kind { Gradients, Back };
    QString from, to; // box ids
    Kind kind = Kind::Gradients;
    bool operator==(const MapArrow&) const = default;
};

struct PlacementMap {
    QString strategy;
    QString reduction; // the algorithm, as the engine words it
    qint64 reductionBytes = 0;
    QString tuning;    // tuningText() of the job's placement: tuned buckets, or empty
    QString path;      // what the arrows show, in words
    QList<MapHost> hosts;
    QList<MapVariable> variables;
    QList<MapArrow> arrows; // the gradients' path
    QStringList psTasks;    // ParameterServer's ps tasks
    QStringList places;     // the boxes variables live in, in colour order
    QList<MapHostGroup> hostGroups; // the hosts alike, every host in one, in the order of their first
    bool empty() const { return hosts.isEmpty(); }
    bool operator==(const PlacementMap&) const = default;
};

// From a run's placements, task table (taskSummaries(): every task, where it runs, what makes
// it stand out) and devices' latest reports; grouped (groupAlike()).
PlacementMap placementMap(const QList<TaskPlacement>& placements, const QList<TaskSummary>& tasks,
                          const QList<DeviceUsage>& usage = {});

} // namespace strata::app
