#include "model_reading.h"

#include <map>
#include <optional>
#include <set>

namespace strata::schema {

namespace {

// --- Keras import ---------------------------------------------------------------------

// Keras documents come from files: every member is read with its type checked, so that a
// value of another type is a problem at its path, never a JSON library exception.

// `key` of `j`: nullptr when `j` is not an object, has no such member or holds null there.
const Json* kerasMember(const Json& j, const char* key)
{
    if (!j.is_object())
        return nullptr;
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

// An object member (a "config"): empty when absent; a problem at `path` when not an object.
Json kerasObject(const Json& j, const char* key, const std::string& path, Problems& problems)
{
    const Json* v = kerasMember(j, key);
    if (v && !v->is_object())
        problems.add(joinPath(path, key), "must be an object, got " + describe(*v));
    return v && v->is_object() ? *v : Json::object();
}

std::string kerasString(const Json& cfg, const char* key, const std::string& fallback, const std::string& path,
                        Problems& problems)
{
    const Json* v = kerasMember(cfg, key);
    if (v && !v->is_string())
        problems.add(joinPath(path, key), "must be a string, got " + describe(*v));
    return v && v->is_string() ? v->get<std::string>() : fallback;
}

double kerasNumber(const Json& cfg, const char* key, double fallback, const std::string& path, Problems& problems)
{
    const Json* v = kerasMember(cfg, key);
    if (v && !v->is_number())
        problems.add(joinPath(path, key), "must be a number, got " + describe(*v));
    return v && v->is_number() ? v->get<double>() : fallback;
}

std::string kerasClass(const Json& j)
{
    const Json* v = kerasMember(j, "class_name");
    return v && v->is_string() ? v->get<std::string>() : std::string();
}

const std::map<std::string, std::string>& kerasLayerAliases()
{
    static const std::map<std::string, std::string> aliases = {
        {"MaxPool2D", "MaxPooling2D"},
        {"AvgPool2D", "AveragePooling2D"},
        {"GlobalAvgPool1D", "GlobalAveragePooling1D"},
        {"GlobalAvgPool2D", "GlobalAveragePooling2D"},
        {"GlobalMaxPool1D", "GlobalMaxPooling1D"},
        {"GlobalMaxPool2D", "GlobalMaxPooling2D"},
        {"Convolution1D", "Conv1D"},
        {"Convolution2D", "Conv2D"},
        {"SyncBatchNormalization", "BatchNormalization"},
        // tf 1.x's cuDNN-only layers: the same cells with tanh and sigmoid (CuDNNGRU's two
        // biases are GRU's reset_after; CuDNNLSTM's two bias vectors only ever act summed, one
        // here).
        {"CuDNNLSTM", "LSTM"}, {"CuDNNGRU", "GRU"}};
    return aliases;
}

// Keras 2.0-2.2 saved glorot_uniform and friends as VarianceScaling(scale, mode, distribution);
// "normal" was its truncated normal (TF 2 spells it "truncated_normal"), as ours is.
Json kerasVarianceScaling(const Json& cfg, const std::string& path, Problems& problems)
{
    const std::string cfgPath = joinPath(path, "config");
    const double scale = kerasNumber(cfg, "scale", 1.0, cfgPath, problems);
    const std::string mode = kerasString(cfg, "mode", "fan_in", cfgPath, problems);
    const std::string distribution = kerasString(cfg, "distribution", "truncated_normal", cfgPath, problems);
    std::string family;
    if (mode == "fan_avg" && scale == 1.0)
        family = "glorot";
    else if (mode == "fan_in" && scale == 2.0)
        family = "he";
    else if (mode == "fan_in" && scale == 1.0)
        family = "lecun";
    std::string kind;
    if (distribution == "uniform")
        kind = "uniform";
    else if (distribution == "normal" || distribution == "truncated_normal")
        kind = "normal";
    if (family.empty() || kind.empty()) {
        problems.add(path, "VarianceScaling(scale=" + std::to_string(scale) + ", mode=\"" + mode + "\", distribution=\"" +
                               distribution + "\") is not supported: Strata has the Glorot, He and LeCun variants "
                               "(uniform or truncated normal)");
        return nullptr;
    }
    return family + "_" + kind;
}

// Maps a Keras initializer ("glorot_uniform" or {"class_name": "GlorotUniform", ...}).
Json kerasInitializer(const Json& v, const std::string& path, Problems& problems)
{
    static const std::map<std::string, std::string> names = {
        {"GlorotUniform", "glorot_uniform"}, {"GlorotNormal", "glorot_normal"}, {"HeUniform", "he_uniform"},
        {"HeNormal", "he_normal"},           {"LecunUniform", "lecun_uniform"}, {"LecunNormal", "lecun_normal"},
        {"Zeros", "zeros"},                  {"Ones", "ones"},                  {"RandomUniform", "uniform"},
        {"RandomNormal", "normal"},          {"Orthogonal", "orthogonal"},      {"OrthogonalInitializer", "orthogonal"}};
    if (v.is_string())
        return v;
    const std::string cls = kerasClass(v);
    if (cls == "VarianceScaling")
        return kerasVarianceScaling(kerasObject(v, "config", path, problems), path, problems);
    auto it = names.find(cls);
    if (it == names.end()) {
        problems.add(path, "initializer " + (cls.empty() ? describe(v) : "\"" + cls + "\"") + " is not supported");
        return nullptr;
    }
    const Json cfg = kerasObject(v, "config", path, problems);
    const std::string cfgPath = joinPath(path, "config");
    const auto number = [&](const char* key, double fallback) { return kerasNumber(cfg, key, fallback, cfgPath, problems); };
    if (cls == "RandomUniform" && (number("minval", -0.05) != -0.05 || number("maxval", 0.05) != 0.05))
        problems.add(path, "RandomUniform is supported with Keras' default range [-0.05, 0.05] only");
    if (cls == "RandomNormal" && (number("mean", 0.0) != 0.0 || number("stddev", 0.05) != 0.05))
        problems.add(path, "RandomNormal is supported with Keras' default mean 0 and stddev 0.05 only");
    if (it->second == "orthogonal" && number("gain", 1.0) != 1.0)
        problems.add(path, "Orthogonal is supported with Keras' default gain 1 only, got " + cfg["gain"].dump());
    return it->second;
}

Json kerasRegularizer(const Json& v, const std::string& path, Problems& problems)
{
    const std::string cls = kerasClass(v);
    const Json cfg = kerasObject(v, "config", path, problems);
    const std::string cfgPath = joinPath(path, "config");
    if ((cls == "L2" || cls == "l2" || cls == "L1L2") && kerasNumber(cfg, "l1", 0.0, cfgPath, problems) == 0.0)
        return Json{{"l2", kerasNumber(cfg, "l2", 0.01, cfgPath, problems)}};
    problems.add(path, "only L2 kernel regularizers are supported, got " + (cls.empty() ? describe(v) : cls));
    return nullptr;
}

bool isFloat32(const Json& dtype)
{
    if (dtype.is_string())
        return dtype == "float32";
    if (const Json* cfg = kerasMember(dtype, "config"))
        if (const Json* name = kerasMember(*cfg, "name"))
            return *name == "float32";
    return dtype.is_null();
}

bool allOnes(const Json& v)
{
    if (v.is_array())
        return std::all_of(v.begin(), v.end(), [](const Json& e) { return e == 1; });
    return v == 1;
}

// LayerNormalization's axis: Keras 3 writes -1 ([-1] once built), tf.keras 2.x the index of
// the last axis counted with the batch ([2] on (batch, steps, features)). `input`: the
// layer's input shape without the batch, when known.
void checkLastAxis(const Json& axis, const Shape* input, const std::string& path, Problems& problems)
{
    const Json a = axis.is_array() && axis.size() == 1 ? axis[0] : axis;
    if (a == -1 || (input && a.is_number_integer() && a.get<int64_t>() == input->rank()))
        return;
    if (!input && a.is_number_integer() && a.get<int64_t>() > 0)
        return; // the input is unknown (an earlier layer failed): its shape error says so
    problems.add(path, "only the last axis (-1) is supported, got " + axis.dump() +
                           (input ? " on input " + input->strWithBatch() : std::string()));
}

// Keras' RNN settings that LSTM and GRU take: true when `key` is one (reported if its value
// asks for what Strata does not do).
bool kerasRecurrentSetting(const std::string& key, const Json& value, const std::string& p, Problems& problems)
{
    // How Keras computes (unrolled or not, fused or per gate, cuDNN or not), and the seed of
    // dropout and the zeros of masked steps, of which there are none here.
    static const std::set<std::string> neutral = {"unroll", "implementation", "use_cudnn", "seed",
                                                  "zero_output_for_mask", "enable_caching_device"};
    static const std::map<std::string, std::string> mustBeFalse = {
        {"go_backwards", "processing the sequence backwards is not supported"},
        {"stateful", "stateful layers are not supported (every batch starts from a zero state)"},
        {"return_state", "returning the states is not supported (a Sequential model passes one output on)"},
        {"time_major", "time-major inputs are not supported (inputs are (batch, steps, features))"}};
    if (neutral.count(key))
        return true;
    if (auto it = mustBeFalse.find(key); it != mustBeFalse.end()) {
        if (value != false)
            problems.add(p, it->second);
        return true;
    }
    if (key == "dropout" || key == "recurrent_dropout") {
        if (!value.is_number() || value.get<double>() != 0.0)
            problems.add(p, "must be 0, got " + value.dump() +
                                ": dropout inside recurrent layers is not supported (a Dropout layer before or "
                                "after it is)");
        return true;
    }
    if (key == "recurrent_activation" && value == "hard_sigmoid") {
        problems.add(p, "hard_sigmoid (the default before Keras 2.3) is not supported: its slope differs between "
                        "Keras versions (0.2, then 1/6 in Keras 3); sigmoid is");
        return true;
    }
    return false;
}

// Converts one Keras layer config to our field object; reports settings we cannot honour.
// `input`: the layer's input shape (without the batch), null when an earlier layer failed.
Json kerasLayerFields(const LayerType& type, const Json& cfg, const Shape* input, const std::string& path,
                      Problems& problems)
{
    Json fields = Json::object();
    std::map<std::string, FieldKind> ours;
    for (const auto& f : type.fields)
        ours.emplace(f.name, f.kind);
    const bool recurrent = type.type == "LSTM" || type.type == "GRU";
    for (const auto& [key, value] : cfg.items()) {
        const std::string p = joinPath(path, key);
        if (recurrent && kerasRecurrentSetting(key, value, p, problems))
            continue;
        if (key == "name" || key == "batch_input_shape" || key == "batch_shape" || key == "input_shape" ||
            key == "batch_size")
            continue;
        if (key == "trainable") {
            if (value != true)
                problems.add(p, "non-trainable layers are not supported");
        } else if (key == "dtype") {
            if (!isFloat32(value))
                problems.add(p, "only float32 layers are supported, got " + value.dump());
        } else if (key == "data_format") {
            if (!value.is_null() && value != "channels_last")
                problems.add(p, "only channels_last is supported, got " + value.dump());
        } else if (key == "dilation_rate") {
            if (!allOnes(value))
                problems.add(p, "dilated convolutions are not supported");
        } else if (key == "groups") {
            if (value != 1)
                problems.add(p, "grouped convolutions are not supported");
        } else if (key == "mask_zero") {
            if (value != false)
                problems.add(p, "masking is not supported");
        } else if (key == "axis" && ours.count(key)) {
            // An integer (Keras 2) or a one-element list (Keras 3); the layer checks which axis.
            fields[key] = value.is_array() && value.size() == 1 ? value[0] : value;
        } else if (key == "renorm") {
            if (value != false)
                problems.add(p, "batch renormalization is not supported");
        } else if (key == "fused" || key == "renorm_clipping" || key == "renorm_momentum") {
            // How TF computes it, or settings of renormalization (refused above when on).
        } else if (key == "keepdims") {
            if (value != false)
                problems.add(p, "keepdims=true is not supported");
        } else if (key == "axis" && type.type == "LayerNormalization") {
            checkLastAxis(value, input, p, problems);
        } else if (key == "rms_scaling") {
            if (value != false)
                problems.add(p, "RMS scaling is not supported");
        } else if (key == "activity_regularizer" || key == "bias_regularizer" || key == "kernel_constraint" ||
                   key == "bias_constraint" || key == "recurrent_constraint" || key == "embeddings_regularizer" || key == "embeddings_constraint" ||
                   key == "beta_regularizer" || key == "gamma_regularizer" || key == "beta_constraint" ||
                   key == "gamma_constraint" || key == "lora_rank" || key == "lora_alpha" || key == "sparse" ||
                   key == "ragged" || key == "quantization_config" || key == "virtual_batch_size" ||
                   key == "adjustment") {
            if (!value.is_null() && value != false)
                problems.add(p, "is not supported (must be null)");
        } else if (key.ends_with("_initializer") && ours.count(key)) {
            fields[key] = kerasInitializer(value, p, problems);
        } else if (key == "kernel_regularizer" || (key == "recurrent_regularizer" && ours.count(key))) {
            if (!value.is_null())
                fields[key] = kerasRegularizer(value, p, problems);
        } else if (ours.count(key) && ours.at(key) == FieldKind::Integer && value.is_array() && value.size() == 1) {
            fields[key] = value[0]; // Conv1D's kernel_size and strides: Keras writes 1-tuples
        } else if (ours.count(key)) {
            fields[key] = value;
        } else {
            problems.add(p, "Keras setting \"" + key + "\" is not supported by Strata's " + type.type);
        }
    }
    return fields;
}

// A Keras Sequential config's layer list, where its Keras version keeps it.
struct KerasLayerList {
    Json cfg;         // the model's config
    bool listShaped;  // Keras 2.0-2.1: the config is the layer list
    Json layers;
    std::string cfgPath, layersPath;
};

// The layer list, each element checked to be a layer; nothing (with problems) when the
// document is no Sequential model with layers. `name` gets the model's name once its config
// is read (its problem comes before the layers').
std::optional<KerasLayerList> kerasLayerList(const Json& json, const std::string& path, std::string& name,
                                             Problems& problems)
{
    const std::string cls = kerasClass(json);
    if (cls != "Sequential") {
        problems.add(joinPath(path, "class_name"),
                     "only Keras Sequential models can be imported, got \"" + cls + "\"");
        return std::nullopt;
    }
    const std::string cfgPath = joinPath(path, "config");
    const Json* config = kerasMember(json, "config");
    const Json cfg = config ? *config : Json::object();
    // Keras 2.0-2.1 wrote the layers as the config itself; later versions as config.layers.
    const bool listShaped = cfg.is_array();
    if (!listShaped && !cfg.is_object()) {
        problems.add(cfgPath, "must be the model's config (an object with \"layers\", or the list of layers), got " +
                                  describe(cfg));
        return std::nullopt;
    }
    name = listShaped ? "sequential" : kerasString(cfg, "name", "sequential", cfgPath, problems);
    const Json* layerList = listShaped ? &cfg : kerasMember(cfg, "layers");
    const Json layers = layerList ? *layerList : Json::array();
    const std::string layersPath = listShaped ? cfgPath : joinPath(cfgPath, "layers");
    if (!layers.is_array() || layers.empty()) {
        problems.add(layersPath, "a Sequential model needs at least one layer");
        return std::nullopt;
    }
    for (size_t i = 0; i < layers.size(); ++i) {
        const Json& l = layers[i];
        if (!l.is_object() || !l.contains("class_name") || !l["class_name"].is_string() ||
            (l.contains("config") && !l["config"].is_object())) {
            problems.add(indexPath(layersPath, i), "must be a Keras layer, {\"class_name\": ..., \"config\": {...}}, got " +
                                                       describe(l));
            return std::nullopt;
        }
    }
    return KerasLayerList{cfg, listShaped, layers, cfgPath, layersPath};
}

// The model's input shape (with the batch dimension) and its path: on an InputLayer (TF 2.x:
// batch_input_shape, Keras 3: batch_shape), on the first layer's config, or in the build config.
std::optional<std::pair<Json, std::string>> kerasInputShape(const Json& json, const std::string& path,
                                                            const KerasLayerList& list)
{
    std::optional<std::pair<Json, std::string>> found;
    auto consider = [&](const Json& shape, const std::string& p) {
        if (!found && shape.is_array())
            found.emplace(shape, p);
    };
    const auto member = [](const Json& j, const char* key) {
        const Json* v = kerasMember(j, key);
        return v ? *v : Json();
    };
    const Json firstCfg = member(list.layers[0], "config");
    const std::string firstPath = indexPath(list.layersPath, 0) + ".config";
    for (const char* key : {"batch_input_shape", "batch_shape"})
        consider(member(firstCfg, key), joinPath(firstPath, key));
    // Keras 3: a model built without an InputLayer keeps its input in the first layer's build config.
    consider(member(member(list.layers[0], "build_config"), "input_shape"),
             indexPath(list.layersPath, 0) + ".build_config.input_shape");
    consider(member(member(json, "build_config"), "input_shape"), joinPath(path, "build_config.input_shape"));
    if (!list.listShaped)
        consider(member(list.cfg, "build_input_shape"), joinPath(list.cfgPath, "build_input_shape"));
    return found;
}

// The layers, converted one by one into `model` (whose input shape is read).
void importKerasLayers(const KerasLayerList& list, ModelSpec& model, Problems& problems)
{
    const Json& layers = list.layers;
    // Each layer's input shape, followed as the layers are read (some Keras settings are
    // checked against it); empty once a layer cannot take its input.
    std::optional<Shape> current;
    if (model.inputShape.rank() > 0)
        current = model.inputShape;
    for (size_t i = 0; i < layers.size(); ++i) {
        const std::string lp = indexPath(list.layersPath, i);
        std::string lcls = kerasClass(layers[i]);
        if (lcls == "InputLayer")
            continue;
        if (auto a = kerasLayerAliases().find(lcls); a != kerasLayerAliases().end())
            lcls = a->second;
        const LayerType* type = findLayerType(lcls);
        if (!type) {
            problems.add(lp + ".class_name", "Keras layer \"" + lcls + "\" is not supported");
            current.reset(); // what follows takes an input of unknown shape
            continue;
        }
        const std::string lcfgPath = lp + ".config";
        const Json lcfg = kerasObject(layers[i], "config", lp, problems);
        Json fields = kerasLayerFields(*type, lcfg, current ? &*current : nullptr, lcfgPath, problems);
        // tf.keras' SyncBatchNormalization is Keras 3's BatchNormalization(synchronized=True).
        if (kerasClass(layers[i]) == "SyncBatchNormalization")
            fields["synchronized"] = true;
        // GRU's convention: CuDNNGRU's is reset_after; Keras before 2.1.3 had only "before" and
        // wrote no key (every later version writes it).
        if (kerasClass(layers[i]) == "CuDNNGRU")
            fields["reset_after"] = true;
        else if (lcls == "GRU" && !lcfg.contains("reset_after"))
            fields["reset_after"] = false;
        model.layers.push_back(makeLayer(*type, kerasString(lcfg, "name", "", lcfgPath, problems), fields, lcfgPath,
                                         problems));
        if (current) {
            try {
                current = type->outputShape(model.layers.back(), *current);
            } catch (const std::exception&) { // a shape error (inferShapes reports it) or a field left unset
                current.reset();
            }
        }
    }
}

} // namespace

ModelSpec importKerasModel(const Json& json, const std::string& path, Problems& problems)
{
    ModelSpec model;
    const std::optional<KerasLayerList> list = kerasLayerList(json, path, model.name, problems);
    if (!list)
        return model;
    const auto inputShape = kerasInputShape(json, path, *list);
    if (!inputShape) {
        problems.add(list->layersPath, "the model has no input shape (build it or give the first layer input_shape)");
        return model;
    }
    model.inputShape = readInputShape(&inputShape->first, inputShape->second, problems, true);
    importKerasLayers(*list, model, problems);
    nameLayers(model.layers, list->layersPath, problems);
    return model;
}

} // namespace strata::schema
