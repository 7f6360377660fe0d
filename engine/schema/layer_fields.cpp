#include "strata/schema/layer_spec.h"

namespace strata::schema {

namespace {

bool isInteger(const Json& v) { return v.is_number_integer() || v.is_number_unsigned(); }

// An integer of a list in [f.min, f.max]; reports at `path` otherwise.
bool readListInteger(const FieldSpec& f, const Json& v, const std::string& path, Problems& problems,
                     const char* alternatives)
{
    if (!isInteger(v) || v.get<int64_t>() < static_cast<int64_t>(f.min) ||
        v.get<int64_t>() > static_cast<int64_t>(f.max)) {
        problems.add(path, "must be an integer between " + std::to_string(static_cast<int64_t>(f.min)) + " and " +
                               std::to_string(static_cast<int64_t>(f.max)) + alternatives + ", got " + describe(v));
        return false;
    }
    return true;
}

Json normalizeIntList(const FieldSpec& f, const Json& v, const std::string& path, Problems& problems)
{
    if (!v.is_array() || v.empty()) {
        problems.add(path, "must be a non-empty list of integers, got " + describe(v));
        return f.defaultValue;
    }
    int inferred = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        if (isInteger(v[i]) && v[i].get<int64_t>() == -1) {
            ++inferred;
            continue;
        }
        if (!readListInteger(f, v[i], indexPath(path, i), problems, " (or -1, inferred)"))
            return f.defaultValue;
    }
    if (inferred > 1) {
        problems.add(path, "may have only one -1 (inferred) entry, got " + v.dump());
        return f.defaultValue;
    }
    return v;
}

Json normalizeDimList(const FieldSpec& f, const Json& v, const std::string& path, Problems& problems)
{
    if (!v.is_array() || v.empty()) {
        problems.add(path, "must be null or a non-empty list of dimensions (integers or null), got " + describe(v));
        return f.defaultValue;
    }
    for (size_t i = 0; i < v.size(); ++i)
        if (!v[i].is_null() && !readListInteger(f, v[i], indexPath(path, i), problems, " or null"))
            return f.defaultValue;
    return v;
}

Json normalizePadding2D(const FieldSpec& f, const Json& v, const std::string& path, Problems& problems)
{
    // One axis: an integer (both sides) or [before, after].
    const auto axis = [&](const Json& a, const std::string& p) -> Json {
        if (isInteger(a))
            return readListInteger(f, a, p, problems, "") ? Json::array({a, a}) : Json();
        if (a.is_array() && a.size() == 2)
            return readListInteger(f, a[0], indexPath(p, 0), problems, "") &&
                           readListInteger(f, a[1], indexPath(p, 1), problems, "")
                       ? a
                       : Json();
        problems.add(p, "must be an integer or a pair [before, after], got " + describe(a));
        return Json();
    };
    Json out;
    if (isInteger(v)) {
        const Json both = axis(v, path);
        out = both.is_null() ? Json() : Json::array({both, both});
    } else if (v.is_array() && v.size() == 2) {
        const Json h = axis(v[0], indexPath(path, 0));
        const Json w = axis(v[1], indexPath(path, 1));
        out = h.is_null() || w.is_null() ? Json() : Json::array({h, w});
    } else {
        problems.add(path, "must be an integer, [height, width] or [[top, bottom], [left, right]], got " +
                               describe(v));
    }
    return out.is_null() ? f.defaultValue : out;
}

Json normalizeField(const FieldSpec& f, ObjectReader& r, Problems& problems)
{
    const std::string path = r.pathOf(f.name);
    if (!r.has(f.name)) {
        r.child(f.name);
        if (f.required)
            problems.add(path, "is required");
        return f.defaultValue;
    }
    switch (f.kind) {
    case FieldKind::Integer:
    case FieldKind::OptionalInteger: {
        auto v = r.maybeInteger(f.name, false, static_cast<int64_t>(f.min), static_cast<int64_t>(f.max));
        return v ? Json(*v) : f.defaultValue;
    }
    case FieldKind::Number: {
        const double v = r.number(f.name, -1, f.min, f.max, f.exclusiveMin);
        if (f.exclusiveMax && v >= f.max) {
            problems.add(path, "must be below " + Json(f.max).dump() + ", got " + Json(v).dump());
            return f.defaultValue;
        }
        return v < f.min ? f.defaultValue : Json(v);
    }
    case FieldKind::Boolean: return r.boolean(f.name, f.defaultValue.is_boolean() && f.defaultValue.get<bool>());
    case FieldKind::Choice: {
        auto v = r.choice(f.name, "", f.choices);
        return v.empty() ? f.defaultValue : Json(v);
    }
    case FieldKind::IntPair:
    case FieldKind::OptionalIntPair: {
        auto v = r.integerList(f.name, static_cast<int64_t>(f.min));
        if (v.size() == 1)
            v.push_back(v[0]);
        if (v.size() != 2) {
            if (!v.empty())
                problems.add(path, "must be an integer or a list of two integers");
            return f.defaultValue;
        }
        return Json(v);
    }
    case FieldKind::Regularizer: {
        const Json* v = r.child(f.name);
        ObjectReader reg(*v, path, problems);
        const double l2 = reg.number("l2", 0.01, 0, 1e6);
        reg.finish();
        return Json{{"l2", l2}};
    }
    case FieldKind::IntList: return normalizeIntList(f, *r.child(f.name), path, problems);
    case FieldKind::OptionalDimList: return normalizeDimList(f, *r.child(f.name), path, problems);
    case FieldKind::Padding2D: return normalizePadding2D(f, *r.child(f.name), path, problems);
    }
    return f.defaultValue;
}

} // namespace

int64_t LayerSpec::integer(const std::string& field) const { return config.at(field).get<int64_t>(); }
double LayerSpec::number(const std::string& field) const { return config.at(field).get<double>(); }
bool LayerSpec::flag(const std::string& field) const { return config.at(field).get<bool>(); }
std::string LayerSpec::text(const std::string& field) const { return config.at(field).get<std::string>(); }
std::vector<int64_t> LayerSpec::pair(const std::string& field) const
{
    return config.at(field).get<std::vector<int64_t>>();
}
std::vector<int64_t> LayerSpec::integers(const std::string& field) const
{
    std::vector<int64_t> out;
    const auto add = [&out](const Json& v, const auto& self) -> void {
        if (v.is_array())
            for (const Json& e : v)
                self(e, self);
        else
            out.push_back(v.is_null() ? 0 : v.get<int64_t>());
    };
    if (!isNull(field))
        add(config[field], add);
    return out;
}
bool LayerSpec::isNull(const std::string& field) const { return !config.contains(field) || config[field].is_null(); }
double LayerSpec::l2(const std::string& field) const
{
    return isNull(field) ? 0.0 : config[field].value("l2", 0.0);
}

LayerSpec makeLayer(const LayerType& type, const std::string& name, const Json& fields, const std::string& path,
                    Problems& problems)
{
    LayerSpec layer{type.type, name, Json::object()};
    ObjectReader r(fields, path, problems);
    r.accept({"type", "name"});
    for (const auto& f : type.fields)
        layer.config[f.name] = normalizeField(f, r, problems);
    r.finish();
    return layer;
}

LayerSpec parseLayer(const Json& json, const std::string& path, Problems& problems)
{
    ObjectReader r(json, path, problems);
    if (!r.valid())
        return {};
    std::vector<std::string> names;
    for (const auto& t : layerTypes())
        names.push_back(t.type);
    const auto typeName = r.maybeString("type", true);
    if (!typeName)
        return {};
    const LayerType* type = findLayerType(*typeName);
    if (!type) {
        std::string message = "unknown layer type \"" + *typeName + "\"";
        const std::string near = closestName(*typeName, names);
        if (!near.empty())
            message += " (did you mean \"" + near + "\"?)";
        std::string list;
        for (const auto& n : names)
            list += (list.empty() ? "" : ", ") + n;
        problems.add(r.pathOf("type"), message + "; known types: " + list);
        return {};
    }
    return makeLayer(*type, r.string("name", ""), json, path, problems);
}

Json layerToJson(const LayerSpec& layer)
{
    Json j{{"type", layer.type}, {"name", layer.name}};
    const LayerType* type = findLayerType(layer.type);
    for (const auto& f : type->fields) {
        const Json& v = layer.config.contains(f.name) ? layer.config[f.name] : f.defaultValue;
        // Only what differs from the default, so saved documents stay short.
        if (v != f.defaultValue)
            j[f.name] = v;
    }
    return j;
}

} // namespace strata::schema
