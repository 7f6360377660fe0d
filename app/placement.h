#pragma once
// A run's placement (from its `placement` events) and task states, in Qt types for the
// dashboard's views.

#include "app/metrics_store.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace strata::app {

struct PlacementReplica {
    int replica = 0;
    QString device;
    int threads = 1;
};

struct PlacementVariable {
    QString name;
    QString shape;     // "(784, 128)"
    qint64 bytes = 0;  // one copy
    QStringList devices;
};

struct TaskPlacement {
    QString task;
    QString host;
    QString strategy;
    QString requestedStrategy; // when a fallback trains instead
    QList<PlacementReplica> replicas;
    QList<PlacementVariable> variables;
    QString reduction;         // the algorithm
    qint64 reductionBytes = 0; // per step
    qint64 globalBatch = 0, perReplicaBatch = 0;
    double learningRate = 0, scaledLearningRate = 0;
    QString scalingRule;
};

struct TaskSummary {
    QString task;
    TaskState state = TaskState::Starting;
    qint64 step = 0, totalSteps = 0;
    QString error;
    int exitCode = 0;
    bool crashed = false;
    bool exited = false;
    QString result; // "test accuracy 0.8759, loss 0.3420" for a completed task
};

QList<TaskPlacement> placements(const MetricsStore& store);
QList<TaskSummary> taskSummaries(const MetricsStore& store);
QString stateName(TaskState state);
// The run's log from entry `from` on (events, warnings, errors of every task, in arrival order).
QList<LogEntry> logEntries(const MetricsStore& store, int from);

} // namespace strata::app
