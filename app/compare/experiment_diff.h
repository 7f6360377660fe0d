#pragma once
// What differs between the experiments of runs being compared, so that an unfair comparison
// is visible: every JSON path whose value is not the same in every document, with the value
// in each. The strategy and cluster sections (logical devices included) are what a
// comparison of strategies compares: they are listed apart from the rest (model, data,
// training, seed), where a difference makes the runs measure different things. `name` and
// `description` only name a run and are left out.

#include <nlohmann/json.hpp>

#include <QString>
#include <QStringList>

#include <vector>

namespace strata::app {

struct ExperimentDifference {
    QString path;       // "training.batch_size", "model.layers[1].units"
    QString label;      // as a user reads it (field_labels.h): "Training: batch size per replica"
    QStringList values; // one per document: strings as they are, other values as compact
                        // JSON, "(absent)" where a document lacks the path
    bool setup = false; // under `strategy` or `cluster`: what is being compared
    // "training.batch_size: 32 | 64 | 32"
    QString text() const;
};

// In document order (the first document's keys first). Objects are compared key by key and
// lists of objects (layers, nodes, tasks) item by item; any other value, a list of numbers
// (a shape) included, is one value. A layer's label names its type when every document that
// has the layer gives it the same one.
std::vector<ExperimentDifference> experimentDifferences(const std::vector<nlohmann::ordered_json>& documents);

} // namespace strata::app
