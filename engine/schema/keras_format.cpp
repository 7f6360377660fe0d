#include "strata/schema/keras_format.h"

#include "strata/core/error.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

namespace strata::schema {

namespace {

// --- The table: what each layer type writes in Keras 3 ---------------------------------------
//
// Checked against keras-team/keras at the release tags v3.0.0 ... v3.15.1 (each layer's
// get_config, Layer.get_config, Operation.get_config, serialization_lib.serialize_keras_object).
// A layer's config is {"name", "trainable", "dtype"} (Operation and Layer) followed by these
// keys in this order.

constexpr KerasVersion kAlways{3, 0};
constexpr KerasVersion kNever{99, 0};

struct KerasKey {
    std::string key;
    // A key Strata's registry has as a field of the same name (converted by its FieldKind),
    // or a Keras-only key written as `value` (its Keras default; Strata cannot train anything else).
    bool fromField = true;
    Json value = nullptr;
    KerasVersion since = kAlways; // the first release that writes it
    // A field whose null means "the value of this other field" (MaxPooling2D's strides): Keras
    // writes it resolved.
    std::string nullMeans = {};
    // An integer field Keras writes as a 1-tuple (Conv1D's kernel_size and strides).
    bool tuple = false;
};

KerasKey field(std::string key, std::string nullMeans = {}) { return {std::move(key), true, nullptr, kAlways, std::move(nullMeans)}; }
KerasKey tupleField(std::string key) { return {std::move(key), true, nullptr, kAlways, {}, true}; }
KerasKey constant(std::string key, Json value, KerasVersion since = kAlways)
{
    return {std::move(key), false, std::move(value), since, {}, false};
}

struct KerasLayerFormat {
    std::string type; // the registry's type, which is also Keras' class name
    std::vector<KerasKey> keys;
    // Registry fields Keras 3 has no key for, with why they can be left out.
    std::vector<std::string> notWritten = {};
    // From this release on the layer is built in __init__ (Layer._build_at_init, Keras 3.10) and
    // Keras writes no build_config for it.
    KerasVersion builtAtInitSince = kNever;
    // Layers whose variables belong to an inner object (Keras 3's LSTM and GRU keep theirs in
    // their `cell`): its attribute and name. Empty: the layer's own variables.
    std::string variablesIn = {};
    std::string variablesOwner = {};
};

const std::vector<KerasLayerFormat>& kerasLayerFormats()
{
    static const std::vector<KerasLayerFormat> formats = {
        // keras/src/layers/core/dense.py
        {"Dense",
         {field("units"), field("activation"), field("use_bias"), field("kernel_initializer"),
          field("bias_initializer"), field("kernel_regularizer"), constant("bias_regularizer", nullptr),
          constant("kernel_constraint", nullptr), constant("bias_constraint", nullptr),
          constant("quantization_config", nullptr, {3, 13})}},
        // keras/src/layers/convolutional/base_conv.py
        {"Conv2D",
         {field("filters"), field("kernel_size"), field("strides"), field("padding"),
          constant("data_format", "channels_last"), constant("dilation_rate", Json::array({1, 1})),
          constant("groups", 1), field("activation"), field("use_bias"), field("kernel_initializer"),
          field("bias_initializer"), field("kernel_regularizer"), constant("bias_regularizer", nullptr),
          constant("activity_regularizer", nullptr), constant("kernel_constraint", nullptr),
          constant("bias_constraint", nullptr)}},
        // keras/src/layers/pooling/base_pooling.py: strides=None becomes pool_size in __init__.
        {"MaxPooling2D",
         {field("pool_size"), field("padding"), field("strides", "pool_size"),
          constant("data_format", "channels_last")},
         {},
         {3, 10}},
        // keras/src/layers/reshaping/flatten.py
        {"Flatten", {constant("data_format", "channels_last")}},
        // keras/src/layers/regularization/dropout.py
        {"Dropout", {field("rate"), field("seed"), field("noise_shape")}, {}, {3, 10}},
        // keras/src/layers/core/embedding.py: Keras 3 dropped input_length (it pops it with a
        // warning); the model's input shape says the same.
        {"Embedding",
         {field("input_dim"), field("output_dim"), field("embeddings_initializer"),
          constant("embeddings_regularizer", nullptr), constant("activity_regularizer", nullptr),
          constant("embeddings_constraint", nullptr), constant("mask_zero", false),
          constant("quantization_config", nullptr, {3, 13})},
         {"input_length"}},
        // keras/src/layers/pooling/base_global_pooling.py
        {"GlobalAveragePooling1D", {constant("data_format", "channels_last"), constant("keepdims", false)}, {}, {3, 10}},
        // keras/src/layers/activations/activation.py
        {"Activation", {field("activation")}, {}, {3, 10}},
        // keras/src/layers/normalization/batch_normalization.py
        {"BatchNormalization",
         {field("axis"), field("momentum"), field("epsilon"), field("center"), field("scale"),
          field("beta_initializer"), field("gamma_initializer"), field("moving_mean_initializer"),
          field("moving_variance_initializer"), constant("beta_regularizer", nullptr),
          constant("gamma_regularizer", nullptr), constant("beta_constraint", nullptr),
          constant("gamma_constraint", nullptr), field("synchronized"), constant("renorm", false, {3, 14}),
          constant("renorm_clipping", nullptr, {3, 14}), constant("renorm_momentum", 0.99, {3, 14})}},
        // keras/src/layers/convolutional/base_conv.py, rank 1: tuples of one.
        {"Conv1D",
         {field("filters"), tupleField("kernel_size"), tupleField("strides"), field("padding"),
          constant("data_format", "channels_last"), constant("dilation_rate", Json::array({1})),
          constant("groups", 1), field("activation"), field("use_bias"), field("kernel_initializer"),
          field("bias_initializer"), field("kernel_regularizer"), constant("bias_regularizer", nullptr),
          constant("activity_regularizer", nullptr), constant("kernel_constraint", nullptr),
          constant("bias_constraint", nullptr)}},
        // keras/src/layers/pooling/base_pooling.py
        {"AveragePooling2D",
         {field("pool_size"), field("padding"), field("strides", "pool_size"),
          constant("data_format", "channels_last")},
         {},
         {3, 10}},
        // keras/src/layers/pooling/base_global_pooling.py
        {"GlobalAveragePooling2D", {constant("data_format", "channels_last"), constant("keepdims", false)}, {}, {3, 10}},
        {"GlobalMaxPooling1D", {constant("data_format", "channels_last"), constant("keepdims", false)}, {}, {3, 10}},
        {"GlobalMaxPooling2D", {constant("data_format", "channels_last"), constant("keepdims", false)}, {}, {3, 10}},
        // keras/src/layers/normalization/layer_normalization.py
        {"LayerNormalization",
         {constant("axis", -1), field("epsilon"), field("center"), field("scale"), constant("rms_scaling", false),
          field("beta_initializer"), field("gamma_initializer"), constant("beta_regularizer", nullptr),
          constant("gamma_regularizer", nullptr), constant("beta_constraint", nullptr),
          constant("gamma_constraint", nullptr)}},
        // keras/src/layers/reshaping/reshape.py
        {"Reshape", {field("target_shape")}, {}, {3, 12}},
        // keras/src/layers/reshaping/zero_padding2d.py: ((top, bottom), (left, right))
        {"ZeroPadding2D", {field("padding"), constant("data_format", "channels_last")}},
        // keras/src/layers/rnn/lstm.py and rnn.py: the RNN's settings, then the cell's; the
        // variables are the cell's.
        {"LSTM",
         {field("return_sequences"), constant("return_state", false), constant("go_backwards", false),
          constant("stateful", false), constant("unroll", false), constant("zero_output_for_mask", false),
          field("units"), field("activation"), field("recurrent_activation"), field("use_bias"),
          field("unit_forget_bias"), field("kernel_initializer"), field("recurrent_initializer"),
          field("bias_initializer"), field("kernel_regularizer"), field("recurrent_regularizer"),
          constant("bias_regularizer", nullptr), constant("activity_regularizer", nullptr),
          constant("kernel_constraint", nullptr), constant("recurrent_constraint", nullptr),
          constant("bias_constraint", nullptr), constant("dropout", 0.0), constant("recurrent_dropout", 0.0),
          constant("seed", nullptr)},
         {},
         kNever,
         "cell",
         "lstm_cell"},
        // keras/src/layers/rnn/gru.py
        {"GRU",
         {field("return_sequences"), constant("return_state", false), constant("go_backwards", false),
          constant("stateful", false), constant("unroll", false), constant("zero_output_for_mask", false),
          field("units"), field("activation"), field("recurrent_activation"), field("use_bias"),
          field("kernel_initializer"), field("recurrent_initializer"), field("bias_initializer"),
          field("kernel_regularizer"), field("recurrent_regularizer"), constant("bias_regularizer", nullptr),
          constant("activity_regularizer", nullptr), constant("kernel_constraint", nullptr),
          constant("recurrent_constraint", nullptr), constant("bias_constraint", nullptr),
          constant("dropout", 0.0), constant("recurrent_dropout", 0.0), field("reset_after"),
          constant("seed", nullptr)},
         {},
         kNever,
         "cell",
         "gru_cell"},
    };
    return formats;
}

const KerasLayerFormat& formatOf(const LayerSpec& layer)
{
    for (const auto& f : kerasLayerFormats()) {
        if (f.type != layer.type)
            continue;
        // Every registry field has its place: written under a key, or left out on purpose. A
        // field added to the registry but not here would silently vanish from exports.
        if (const LayerType* type = findLayerType(f.type))
            for (const FieldSpec& field : type->fields) {
                const bool written = std::any_of(f.keys.begin(), f.keys.end(),
                                                 [&](const KerasKey& k) { return k.fromField && k.key == field.name; });
                const bool omitted = std::find(f.notWritten.begin(), f.notWritten.end(), field.name) != f.notWritten.end();
                if (!written && !omitted)
                    throw InternalError(__FILE__, __LINE__,
                                        "keras_format.cpp: " + f.type + "'s field \"" + field.name +
                                            "\" is neither written nor listed as not written");
            }
        return f;
    }
    throw ConfigError("model.layers", "layer \"" + layer.name + "\" (" + layer.type +
                                          ") cannot be exported to Keras yet: keras_format.cpp has no entry for " +
                                          layer.type);
}

// --- Keras objects --------------------------------------------------------------------------

Json kerasObject(const std::string& module, const std::string& className, Json config)
{
    return Json{{"module", module}, {"class_name", className}, {"config", std::move(config)}, {"registered_name", nullptr}};
}

// keras/src/dtype_policies: Layer.get_config wrote the policy's name until 3.3, the serialized
// policy from 3.4 (a FloatDTypePolicy in 3.4, a DTypePolicy from 3.5).
Json dtypePolicy(KerasVersion v)
{
    if (!v.atLeast(3, 4))
        return "float32";
    return kerasObject("keras", v.atLeast(3, 5) ? "DTypePolicy" : "FloatDTypePolicy", Json{{"name", "float32"}});
}

// keras/src/initializers: the GlorotUniform family's get_config is {"seed"}; RandomUniform and
// RandomNormal add their range (Keras' defaults: the only ones Strata has).
Json kerasInitializer(const std::string& name)
{
    static const std::map<std::string, std::string> classes = {
        {"glorot_uniform", "GlorotUniform"}, {"glorot_normal", "GlorotNormal"}, {"he_uniform", "HeUniform"},
        {"he_normal", "HeNormal"},           {"lecun_uniform", "LecunUniform"}, {"lecun_normal", "LecunNormal"},
        {"uniform", "RandomUniform"},        {"normal", "RandomNormal"},        {"zeros", "Zeros"},
        {"ones", "Ones"},                    {"orthogonal", "Orthogonal"}};
    const auto it = classes.find(name);
    if (it == classes.end())
        throw ConfigError("model.layers", "initializer \"" + name + "\" has no Keras equivalent");
    Json config = Json::object();
    if (name == "uniform")
        config = {{"seed", nullptr}, {"minval", -0.05}, {"maxval", 0.05}};
    else if (name == "normal")
        config = {{"seed", nullptr}, {"mean", 0.0}, {"stddev", 0.05}};
    else if (name == "orthogonal")
        config = {{"gain", 1.0}, {"seed", nullptr}};
    else if (name != "zeros" && name != "ones")
        config = {{"seed", nullptr}};
    return kerasObject("keras.initializers", it->second, config);
}

// keras/src/regularizers/regularizers.py: L2.get_config is {"l2": float}.
Json kerasRegularizer(const LayerSpec& layer, const std::string& key)
{
    if (layer.isNull(key))
        return nullptr;
    return kerasObject("keras.regularizers", "L2", Json{{"l2", layer.l2(key)}});
}

Json batchShape(const Shape& shape)
{
    Json dims = Json::array({nullptr});
    for (int64_t d : shape.dims())
        dims.push_back(d);
    return dims;
}

Json fieldValue(const LayerType& type, const LayerSpec& layer, const KerasKey& k)
{
    const auto f = std::find_if(type.fields.begin(), type.fields.end(), [&](const FieldSpec& s) { return s.name == k.key; });
    if (f == type.fields.end())
        throw InternalError(__FILE__, __LINE__,
                            "keras_format.cpp: " + layer.type + " has no registry field \"" + k.key + "\"");
    Json value = layer.config.contains(k.key) ? layer.config[k.key] : f->defaultValue;
    if (value.is_null() && !k.nullMeans.empty())
        value = layer.config.contains(k.nullMeans) ? layer.config[k.nullMeans] : Json();
    if (f->kind == FieldKind::Regularizer)
        return kerasRegularizer(layer, k.key);
    if (k.key.ends_with("_initializer") && value.is_string())
        return kerasInitializer(value.get<std::string>());
    if (k.tuple && value.is_number_integer())
        return Json::array({value});
    return value;
}

Json layerConfig(const LayerSpec& layer, const KerasLayerFormat& format, KerasVersion v)
{
    const LayerType* type = findLayerType(layer.type);
    Json config{{"name", layer.name}, {"trainable", true}, {"dtype", dtypePolicy(v)}};
    for (const auto& k : format.keys) {
        if (!v.atLeast(k.since.major, k.since.minor))
            continue;
        config[k.key] = k.fromField ? fieldValue(*type, layer, k) : k.value;
    }
    return config;
}

} // namespace

KerasVersion parseKerasVersion(const std::string& text, const std::string& path)
{
    static const std::regex pattern(R"((\d+)\.(\d+)(\.\d+)?)");
    std::smatch m;
    KerasVersion v;
    const std::string range = kOldestKerasVersion.str() + " to " + kNewestKerasVersion.str();
    if (!std::regex_match(text, m, pattern))
        throw ConfigError(path, "must be a Keras 3 release such as \"" + kDefaultKerasVersion.str() + "\" (" + range +
                                    "), got \"" + text + "\"");
    try {
        v = {std::stoi(m[1].str()), std::stoi(m[2].str())};
    } catch (const std::exception&) {
        throw ConfigError(path, "\"" + text + "\" is not a Keras release number");
    }
    if (!v.atLeast(kOldestKerasVersion.major, kOldestKerasVersion.minor) ||
        v.atLeast(kNewestKerasVersion.major, kNewestKerasVersion.minor + 1))
        throw ConfigError(path, "Keras " + v.str() + " is not supported: Strata writes the files of Keras " + range +
                                    " (the releases whose source it was checked against)");
    return v;
}

std::string kerasSnakeCase(const std::string& className)
{
    // keras/src/utils/naming.py, to_snake_case: the same three substitutions.
    static const std::regex nonWord(R"(\W+)");
    static const std::regex capitalWord("(.)([A-Z][a-z]+)");
    static const std::regex lowerUpper("([a-z])([A-Z])");
    std::string name = std::regex_replace(className, nonWord, "");
    name = std::regex_replace(name, capitalWord, "$1_$2");
    name = std::regex_replace(name, lowerUpper, "$1_$2");
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    return name;
}

std::vector<std::string> kerasExportableTypes()
{
    std::vector<std::string> types;
    for (const auto& f : kerasLayerFormats())
        types.push_back(f.type);
    return types;
}

Json kerasModelConfig(const ModelSpec& model, KerasVersion v)
{
    const ModelShapes shapes = checkedShapes(model);

    // keras/src/layers/core/input_layer.py, InputLayer.get_config (ragged since 3.9, optional
    // since 3.13). Its automatic name is input_layer; Sequential refuses duplicate names.
    std::set<std::string> names;
    for (const auto& l : model.layers)
        names.insert(l.name);
    std::string inputName = "input_layer";
    for (int n = 1; names.count(inputName); ++n)
        inputName = "input_layer_" + std::to_string(n);
    Json inputConfig{{"batch_shape", batchShape(model.inputShape)}, {"dtype", "float32"}, {"sparse", false}};
    if (v.atLeast(3, 9))
        inputConfig["ragged"] = false;
    inputConfig["name"] = inputName;
    if (v.atLeast(3, 13))
        inputConfig["optional"] = false;

    Json layers = Json::array({kerasObject("keras.layers", "InputLayer", inputConfig)});
    Shape input = model.inputShape;
    for (size_t i = 0; i < model.layers.size(); ++i) {
        const LayerSpec& layer = model.layers[i];
        const KerasLayerFormat& format = formatOf(layer);
        // serialization_lib.serialize_keras_object: the public class's module and name, then
        // get_build_config() (the shape the layer was built with) when it returns one.
        Json l = kerasObject("keras.layers", layer.type, layerConfig(layer, format, v));
        if (!v.atLeast(format.builtAtInitSince.major, format.builtAtInitSince.minor))
            l["build_config"] = Json{{"input_shape", batchShape(input)}};
        layers.push_back(std::move(l));
        input = shapes.layers[i].output;
    }

    // keras/src/models/sequential.py, Sequential.get_config: Layer's name, trainable and dtype,
    // the layers (the InputLayer first), and, once built through its InputLayer,
    // build_input_shape. The model's own build_config is the shape Sequential.build took.
    Json config{{"name", model.name},
                {"trainable", true},
                {"dtype", dtypePolicy(v)},
                {"layers", std::move(layers)},
                {"build_input_shape", batchShape(model.inputShape)}};
    Json json = kerasObject("keras", "Sequential", std::move(config));
    json["build_config"] = Json{{"input_shape", batchShape(model.inputShape)}};
    return json;
}

Json kerasMetadata(KerasVersion v, const std::string& dateSaved)
{
    return Json{{"keras_version", v.str() + ".0"}, {"date_saved", dateSaved}};
}

std::vector<KerasLayerWeights> kerasWeightsLayout(const ModelSpec& model)
{
    const ModelShapes shapes = checkedShapes(model);
    std::vector<KerasLayerWeights> out;
    // saving_lib._get_unique_name over the Sequential's `layers` container.
    std::map<std::string, int> used;
    for (size_t i = 0; i < model.layers.size(); ++i) {
        const LayerSpec& layer = model.layers[i];
        const KerasLayerFormat& format = formatOf(layer);
        std::string key = kerasSnakeCase(layer.type);
        if (auto it = used.find(key); it == used.end())
            used[key] = 0;
        else
            key.append("_").append(std::to_string(++it->second)); // not += "_" + ...: GCC 12 warns falsely (-Wrestrict)

        KerasLayerWeights w;
        w.layer = i;
        w.group = "layers/" + key;
        w.varsGroup = format.variablesIn.empty() ? w.group + "/vars" : w.group + "/" + format.variablesIn + "/vars";
        w.ownerName = format.variablesIn.empty() ? layer.name : format.variablesOwner;
        // Layer.save_own_variables: _trainable_variables + _non_trainable_variables, each in
        // creation order (the registry lists them in Keras' build order).
        for (bool trainable : {true, false})
            for (const ParamSpec& p : shapes.layers[i].params)
                if (p.trainable == trainable)
                    w.variables.push_back(
                        {w.varsGroup + "/" + std::to_string(w.variables.size()), p.name, p.shape});
        out.push_back(std::move(w));
    }
    return out;
}

} // namespace strata::schema
