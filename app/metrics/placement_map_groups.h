#pragma once
// Many alike drawn as one, for a placement map of many tasks. Tasks are alike when they have
// the same role and shape: the same devices (by name: which GPU of its node each is aside),
// each with as many replicas and the same variables; their names and hosts aside. Hosts are
// alike when their tasks are, one for one. A task that stands out (MapTask::alert) is like no
// other, nor is a ps task (its shards, its colour): a group never hides them, and their host
// stands alone. A map of at most kMapWholeUpTo tasks is not grouped: a small job is drawn whole.

#include "app/metrics/placement_map.h"

#include <QString>
#include <QStringList>

namespace strata::app {

constexpr int kMapWholeUpTo = 8;

// Sets every host's task groups and the map's host groups (every task and host in one group,
// each group in the order of its first member).
void groupAlike(PlacementMap& map);

// Names in runs of consecutive numbers: tasks "worker:0-3, worker:8", hosts "node-1 ... node-6,
// node-9" (a run of three or more hosts as its first and last, joined by no-break spaces).
QString namesText(const QStringList& names);

// What a group shows of the devices at index `device` of `tasks`: how busy the least and most
// busy were at their latest report (-1: none reported), and the most GPU memory one used, of
// how much (-1: not reported).
struct UsageSpan {
    double leastBusy = -1, mostBusy = -1;
    qint64 mostMemoryUsed = -1, memoryTotal = -1;
};
UsageSpan usageSpan(const PlacementMap& map, const QStringList& tasks, int device);

} // namespace strata::app
