#pragma once
// A field of the experiment document as a user reads it: the page it is edited on and its
// label there, e.g. "training.batch_size" -> "Training: batch size per replica",
// "model.layers[1].units" -> "Model: layer 2 (Dense) units", "cluster.tasks[0].count" ->
// "Cluster: task row 1 count", "seed" -> "Training: seed". Items of lists count from 1, as the
// pages number them. A field without a label of its own reads as its path's words under its
// section ("training.optimizer.beta_1" -> "Training: optimizer beta 1").
//
// Pure functions; any thread.

#include <QString>

namespace strata::app {

// `layerType`: for a path under model.layers[i], that layer's type when it is known (it is
// named after the layer's number).
QString experimentFieldLabel(const QString& path, const QString& layerType = {});

} // namespace strata::app
