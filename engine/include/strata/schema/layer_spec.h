#pragma once
// Layer specifications: which layer types exist, their fields (with defaults, ranges and
// choices, so an editor can be built from them), their output shapes and parameters.
// Qt-free and compute-free: the app links this to check models as the user types.

#include "strata/core/shape.h"
#include "strata/schema/json_reader.h"

#include <string>
#include <string_view>
#include <vector>

namespace strata::schema {

enum class FieldKind {
    Integer,     // whole number in [min, max]
    Number,      // real number in [min, max]
    Boolean,
    Choice,      // one of `choices`
    IntPair,     // an integer or [h, w], normalized to [h, w]
    OptionalIntPair, // like IntPair, or null meaning "same as another field"
    OptionalInteger, // an integer or null
    Regularizer, // null or {"l2": x}
    IntList,     // a non-empty list of integers in [min, max], one of which may be -1 (a dimension
                 // inferred from the others, as Keras' Reshape target_shape)
    OptionalDimList, // null, or a non-empty list of dimensions: integers in [min, max] or null (left
                     // to the input, as Keras writes None), e.g. Dropout's noise_shape
    Padding2D,   // an integer, [h, w] or [[top, bottom], [left, right]] (integers in [min, max]),
                 // normalized to [[top, bottom], [left, right]] as Keras' ZeroPadding2D config
};

struct FieldSpec {
    std::string name;
    FieldKind kind;
    Json defaultValue; // null with `required` means the user must give it
    bool required = false;
    double min = 0;
    double max = 1e18;
    bool exclusiveMin = false;
    std::vector<std::string> choices;
    std::string help;
    bool exclusiveMax = false;
};

// A layer as the user wrote it, with every field present (defaults filled in).
struct LayerSpec {
    std::string type;
    std::string name;
    Json config = Json::object();

    int64_t integer(const std::string& field) const;
    double number(const std::string& field) const;
    bool flag(const std::string& field) const;
    std::string text(const std::string& field) const;
    std::vector<int64_t> pair(const std::string& field) const;
    // The integers of a list field in order, nested lists flattened ([[1, 2], [3, 4]]: 1, 2,
    // 3, 4), null entries read as 0; empty when the field is null.
    std::vector<int64_t> integers(const std::string& field) const;
    bool isNull(const std::string& field) const;
    // L2 factor of a Regularizer field (0 when none).
    double l2(const std::string& field) const;
};

// A trainable variable a layer creates.
struct ParamSpec {
    std::string name;        // "kernel", "bias", "embeddings"
    Shape shape;
    std::string initializer; // "glorot_uniform", "zeros", ...
    double l2 = 0;           // kernel L2 regularization factor
    // False for state the layer updates itself rather than the optimizer (BatchNormalization's
    // moving statistics): saved and restored with the weights, never given a gradient.
    bool trainable = true;
};

struct LayerType {
    std::string type;        // "Dense" (also the Keras class name)
    std::string baseName;    // "dense": automatic names are dense, dense_1, ...
    std::string description; // one line, for editors and docs
    std::vector<FieldSpec> fields;
    // Output shape (without batch) for `input`; throws ShapeError describing the mismatch.
    Shape (*outputShape)(const LayerSpec& layer, const Shape& input);
    std::vector<ParamSpec> (*params)(const LayerSpec& layer, const Shape& input);
};

const std::vector<LayerType>& layerTypes();
const LayerType* findLayerType(std::string_view type);
const std::vector<std::string>& activationNames();
const std::vector<std::string>& initializerNames();

// Reads one layer of our own model format ({"type": "Dense", "units": 128, ...}).
// A layer without "name" gets an empty name; parseModel assigns Keras-style names.
LayerSpec parseLayer(const Json& json, const std::string& path, Problems& problems);
// Checks and normalizes `config` against the layer type's fields (used by parseLayer and
// the Keras import): fills defaults, reports wrong types and out-of-range values.
LayerSpec makeLayer(const LayerType& type, const std::string& name, const Json& fields,
                    const std::string& path, Problems& problems);
Json layerToJson(const LayerSpec& layer);

} // namespace strata::schema
