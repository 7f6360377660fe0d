#include "model_reading.h"

#include <map>
#include <set>

namespace strata::schema {

Shape readInputShape(const Json* v, const std::string& path, Problems& problems, bool withBatch)
{
    if (!v || !v->is_array() || v->empty()) {
        problems.add(path, "must be a non-empty list of dimensions");
        return {};
    }
    std::vector<int64_t> dims;
    for (size_t i = withBatch ? 1 : 0; i < v->size(); ++i) {
        const Json& d = (*v)[i];
        if (!(d.is_number_integer() || d.is_number_unsigned()) || d.get<int64_t>() < 1) {
            problems.add(indexPath(path, i), "must be a positive integer, got " + describe(d) +
                                                 (d.is_null() ? " (variable-size dimensions are not supported)" : ""));
            return {};
        }
        dims.push_back(d.get<int64_t>());
    }
    if (dims.empty())
        problems.add(path, "needs at least one dimension besides the batch");
    return Shape(std::move(dims));
}


void nameLayers(std::vector<LayerSpec>& layers, const std::string& path, Problems& problems)
{
    std::set<std::string> used;
    for (const auto& l : layers)
        if (!l.name.empty())
            used.insert(l.name);
    std::map<std::string, int> counters;
    std::set<std::string> seen;
    for (size_t i = 0; i < layers.size(); ++i) {
        auto& l = layers[i];
        const LayerType* type = findLayerType(l.type);
        if (!type)
            continue;
        if (l.name.empty()) {
            for (;;) {
                int& n = counters[type->baseName];
                std::string candidate = n == 0 ? type->baseName : type->baseName + "_" + std::to_string(n);
                ++n;
                if (!used.count(candidate)) {
                    l.name = candidate;
                    used.insert(candidate);
                    break;
                }
            }
        }
        if (!seen.insert(l.name).second)
            problems.add(indexPath(path, i) + ".name", "duplicate layer name \"" + l.name + "\"");
    }
}

namespace {

ModelSpec parseOwnModel(const Json& json, const std::string& path, Problems& problems)
{
    ModelSpec model;
    ObjectReader r(json, path, problems);
    if (!r.valid())
        return model;
    model.name = r.string("name", "sequential");
    if (r.has("input_shape"))
        model.inputShape = readInputShape(r.child("input_shape"), r.pathOf("input_shape"), problems, false);
    else {
        r.child("input_shape");
        problems.add(r.pathOf("input_shape"), "is required (the shape of one example, e.g. [28, 28])");
    }
    const Json* layers = r.child("layers");
    if (!layers || !layers->is_array() || layers->empty()) {
        problems.add(r.pathOf("layers"), "must be a non-empty list of layers");
    } else {
        for (size_t i = 0; i < layers->size(); ++i) {
            LayerSpec layer = parseLayer((*layers)[i], indexPath(r.pathOf("layers"), i), problems);
            model.layers.push_back(std::move(layer));
        }
    }
    r.finish();
    nameLayers(model.layers, r.pathOf("layers"), problems);
    return model;
}

} // namespace

ModelSpec parseModel(const Json& json, const std::string& path, Problems& problems)
{
    if (json.is_object() && json.contains("class_name"))
        return importKerasModel(json, path, problems);
    return parseOwnModel(json, path, problems);
}

Json modelToJson(const ModelSpec& model)
{
    Json layers = Json::array();
    for (const auto& l : model.layers)
        layers.push_back(layerToJson(l));
    return Json{{"name", model.name}, {"input_shape", model.inputShape.dims()}, {"layers", layers}};
}

} // namespace strata::schema
