#pragma once
// A Sequential model specification: input shape and layers. Read from our own JSON format
// or imported from a Keras `model.to_json()` Sequential config (TF 2.x or Keras 3).

#include "strata/schema/layer_spec.h"

namespace strata::schema {

struct ModelSpec {
    std::string name = "sequential";
    Shape inputShape; // without the batch dimension
    std::vector<LayerSpec> layers;
};

// Reads a model: our format ({"input_shape": [...], "layers": [...]}) or, when the object
// has "class_name", a Keras Sequential config. Problems are collected with field paths.
ModelSpec parseModel(const Json& json, const std::string& path, Problems& problems);
ModelSpec importKerasModel(const Json& json, const std::string& path, Problems& problems);
Json modelToJson(const ModelSpec& model);

struct LayerShape {
    Shape output;
    std::vector<ParamSpec> params;
    int64_t paramCount = 0;        // every variable, as Keras counts them
    int64_t nonTrainableCount = 0; // of which not trained by the optimizer
};

// Result of shape inference. On failure, `layers` holds the layers before the failing one,
// `failedLayer` its index and `error` the message (naming the layer and both shapes).
struct ModelShapes {
    std::vector<LayerShape> layers;
    int64_t totalParams = 0;
    int64_t nonTrainableParams = 0;
    int failedLayer = -1;
    std::string error;

    bool ok() const { return failedLayer < 0; }
    const Shape& output() const { return layers.back().output; }
};

ModelShapes inferShapes(const ModelSpec& model);
// inferShapes, throwing ShapeError on failure.
ModelShapes checkedShapes(const ModelSpec& model);
// A table like Keras' model.summary(): layer (type), output shape, params; totals.
std::string summary(const ModelSpec& model, const ModelShapes& shapes);

} // namespace strata::schema
