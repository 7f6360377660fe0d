#pragma once
// The experiment's fields as the setup pages label them, so that a problem reads
// "Training: Batch size per replica: must be at least 1" or "Model: layer 2 (Dense): units: ..."
// rather than a JSON path. One table: the pages take their row labels from it too.

#include <nlohmann/json.hpp>

#include <QString>

namespace strata::app {

// The label of one field on its page ("training.batch_size": "Batch size per replica"); empty
// for a field the table does not name.
QString fieldTitle(const QString& path);
// Where a problem's field is, as the pages name it: its page, then the labels down to the field
// ("training.checkpoint.every_epochs": "Training: Checkpoints: Every N epochs"). A list element
// is named by its 1-based number and what it is ("model.layers[1].units": "Model: layer 2
// (Dense): units", the type read from `document`); a field the table does not name keeps its
// key ("training.optimizer.beta_1": "Training: Optimizer: beta_1"). Empty for an empty path; a
// path outside the pages is returned as it is.
QString fieldLabel(const QString& path, const nlohmann::ordered_json& document);
// The path of the field a JSON pointer names: "/model/layers/1/units": "model.layers[1].units".
QString fieldPath(const QString& pointer);

} // namespace strata::app
