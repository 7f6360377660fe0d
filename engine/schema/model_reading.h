#pragma once
// What reading Strata's own model format and importing a Keras one share (model_json.cpp,
// keras_import.cpp).

#include "strata/schema/model_spec.h"

namespace strata::schema {

// The dimensions of `v` (after its first, the batch, when `withBatch`); problems at `path`.
Shape readInputShape(const Json* v, const std::string& path, Problems& problems, bool withBatch);
// Gives unnamed layers Keras' automatic names (dense, dense_1, ...) and rejects duplicates.
void nameLayers(std::vector<LayerSpec>& layers, const std::string& path, Problems& problems);

} // namespace strata::schema
