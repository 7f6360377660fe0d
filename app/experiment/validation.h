#pragma once
// Validation of an experiment before launch: every problem with the field it concerns (the
// engine's own rules, from strata::schema), the model's per-layer shapes and parameter counts
// (also when the rest of the document has problems), and what the run will look like on
// this host (replicas, global batch), including devices that do not exist here. Under
// MultiWorkerMirrored the replicas are the job's: each worker's local devices times the
// training tasks (chief and workers); under ParameterServer one per worker task (the chief
// coordinates, the ps tasks hold the variables), and its global batch is one worker's batch
// (each step applies one worker's gradients, as the engine's ParameterServerStrategy). When
// they all run on this machine, its devices are checked, a note says when their compute
// threads outnumber its cores, and the data must be here (the directory exists and holds the
// files the engine reads); tasks on remote nodes are checked on their nodes before launch
// (launch/node_check.h).

#include <nlohmann/json.hpp>

#include <QList>
#include <QString>
#include <QStringList>

namespace strata::app {

struct Problem {
    QString path;    // "training.optimizer.learning_rate"; empty for the whole document
    QString message;
    QString field;   // the path as the pages label it (field_labels.h): "Training: Learning rate"
    // With the path, as the document's reader knows the fields (`strata run`).
    QString text() const { return path.isEmpty() ? message : path + ": " + message; }
    // With the field's label, as the setup pages name it.
    QString labelled() const { return field.isEmpty() ? text() : field + ": " + message; }
};

struct LayerRow {
    QString name;
    QString type;
    QString outputShape; // "(None, 128)"; empty when it could not be computed
    qint64 params = 0;
    QString error;       // why this layer's shape could not be computed
};

// What the launching host offers, as the engine reports it (`strata-engine devices`).
struct HostCapabilities {
    int logicalCpus = 1;
    int gpus = 0;
    bool known = false; // false: device existence is not checked
};

struct Validation {
    QList<Problem> problems;
    QList<Problem> notes;
    QList<LayerRow> layers;
    qint64 totalParams = 0;
    qint64 nonTrainableParams = 0; // of totalParams: moving statistics
    int failedLayer = -1;
    QString inputShape; // "(None, 28, 28)"
    QString strategy;   // the strategy that trains (a TPU's fallback)
    int workers = 1;    // tasks that compute (MultiWorkerMirrored: chief and workers; ParameterServer: workers)
    int replicas = 1;   // in the whole job
    qint64 perReplicaBatch = 0;
    qint64 globalBatch = 0; // the examples of one step (ParameterServer: one worker's batch)

    bool ok() const { return problems.isEmpty(); }
};

Validation validate(const nlohmann::ordered_json& document, const QString& baseDir, const HostCapabilities& host);

} // namespace strata::app
