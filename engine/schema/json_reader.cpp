#include "strata/schema/json_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace strata::schema {

void Problems::throwIfAny() const
{
    if (!m_list.empty())
        throw ConfigError(m_list);
}

std::string joinPath(const std::string& parent, const std::string& field)
{
    return parent.empty() ? field : parent + "." + field;
}

std::string indexPath(const std::string& parent, size_t index)
{
    return parent + "[" + std::to_string(index) + "]";
}

std::string describe(const Json& value)
{
    switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return std::string("boolean ") + (value.get<bool>() ? "true" : "false");
    case Json::value_t::string: return "string " + value.dump();
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return "number " + value.dump();
    case Json::value_t::array: return "an array";
    case Json::value_t::object: return "an object";
    default: return "a value of unexpected type";
    }
}

namespace {
size_t editDistance(const std::string& a, const std::string& b)
{
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t sub = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}
} // namespace

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

std::string closestName(const std::string& name, const std::vector<std::string>& candidates)
{
    std::string best;
    size_t bestDistance = std::max<size_t>(2, name.size() / 3) + 1;
    for (const auto& c : candidates) {
        const size_t d = editDistance(name, c);
        if (d < bestDistance) {
            bestDistance = d;
            best = c;
        }
    }
    return best;
}

ObjectReader::ObjectReader(const Json& object, std::string path, Problems& problems)
    : m_path(std::move(path)), m_problems(problems)
{
    if (object.is_object())
        m_object = &object;
    else
        m_problems.add(m_path, "must be an object, got " + describe(object));
}

bool ObjectReader::has(const std::string& field) const
{
    return m_object && m_object->contains(field) && !(*m_object)[field].is_null();
}

const Json* ObjectReader::child(const std::string& field)
{
    m_known.insert(field);
    if (!m_object)
        return nullptr;
    auto it = m_object->find(field);
    if (it == m_object->end() || it->is_null())
        return nullptr;
    return &*it;
}

std::optional<int64_t> ObjectReader::maybeInteger(const std::string& field, bool required, int64_t min, int64_t max)
{
    const Json* v = child(field);
    if (!v) {
        if (required && m_object)
            m_problems.add(pathOf(field), "is required");
        return std::nullopt;
    }
    int64_t value;
    if (v->is_number_integer() || v->is_number_unsigned()) {
        value = v->get<int64_t>();
    } else if (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>() &&
               std::fabs(v->get<double>()) < 9e15) {
        value = static_cast<int64_t>(v->get<double>());
    } else {
        m_problems.add(pathOf(field), "must be an integer, got " + describe(*v));
        return std::nullopt;
    }
    if (value < min || value > max) {
        std::string range;
        if (max == std::numeric_limits<int64_t>::max())
            range = "at least " + std::to_string(min);
        else if (min == std::numeric_limits<int64_t>::min())
            range = "at most " + std::to_string(max);
        else
            range = "between " + std::to_string(min) + " and " + std::to_string(max);
        m_problems.add(pathOf(field), "must be " + range + ", got " + std::to_string(value));
        return std::nullopt;
    }
    return value;
}

int64_t ObjectReader::integer(const std::string& field, int64_t fallback, int64_t min, int64_t max)
{
    return maybeInteger(field, false, min, max).value_or(fallback);
}

double ObjectReader::number(const std::string& field, double fallback, double min, double max, bool exclusiveMin)
{
    const Json* v = child(field);
    if (!v)
        return fallback;
    if (!v->is_number()) {
        m_problems.add(pathOf(field), "must be a number, got " + describe(*v));
        return fallback;
    }
    const double value = v->get<double>();
    const bool tooLow = exclusiveMin ? !(value > min) : !(value >= min);
    if (!std::isfinite(value) || tooLow || value > max) {
        const auto num = [](double x) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%g", x);
            return std::string(buf);
        };
        std::string range;
        if (!exclusiveMin && std::isfinite(min) && std::isfinite(max))
            range = "between " + num(min) + " and " + num(max);
        else if (std::isfinite(max))
            range = (exclusiveMin ? "greater than " : "at least ") + num(min) + " and at most " + num(max);
        else
            range = (exclusiveMin ? "greater than " : "at least ") + num(min);
        m_problems.add(pathOf(field), "must be " + range + ", got " + v->dump());
        return fallback;
    }
    return value;
}

bool ObjectReader::boolean(const std::string& field, bool fallback)
{
    const Json* v = child(field);
    if (!v)
        return fallback;
    if (!v->is_boolean()) {
        m_problems.add(pathOf(field), "must be true or false, got " + describe(*v));
        return fallback;
    }
    return v->get<bool>();
}

std::optional<std::string> ObjectReader::maybeString(const std::string& field, bool required)
{
    const Json* v = child(field);
    if (!v) {
        if (required && m_object)
            m_problems.add(pathOf(field), "is required");
        return std::nullopt;
    }
    if (!v->is_string()) {
        m_problems.add(pathOf(field), "must be a string, got " + describe(*v));
        return std::nullopt;
    }
    return v->get<std::string>();
}

std::string ObjectReader::string(const std::string& field, const std::string& fallback)
{
    return maybeString(field, false).value_or(fallback);
}

std::string readChoice(const Json& value, const std::string& path, const std::vector<std::string>& choices,
                       Problems& problems)
{
    std::string list;
    for (const auto& c : choices)
        list += (list.empty() ? "" : ", ") + c;
    if (!value.is_string()) {
        problems.add(path, "must be a string, one of: " + list + "; got " + describe(value));
        return {};
    }
    const std::string v = value.get<std::string>();
    if (std::find(choices.begin(), choices.end(), v) != choices.end())
        return v;
    std::string message = "unknown value " + quoted(v);
    const std::string near = closestName(v, choices);
    if (!near.empty())
        message += " (did you mean " + quoted(near) + "?)";
    problems.add(path, message + "; expected one of: " + list);
    return {};
}

std::string ObjectReader::choice(const std::string& field, const std::string& fallback,
                                 const std::vector<std::string>& choices)
{
    const Json* v = child(field);
    if (!v)
        return fallback;
    const std::string value = readChoice(*v, pathOf(field), choices, m_problems);
    return value.empty() ? fallback : value;
}

std::vector<int64_t> ObjectReader::integerList(const std::string& field, int64_t minValue)
{
    std::vector<int64_t> out;
    const Json* v = child(field);
    if (!v)
        return out;
    if (v->is_number_integer() || v->is_number_unsigned()) {
        out.push_back(v->get<int64_t>());
    } else if (v->is_array()) {
        for (size_t i = 0; i < v->size(); ++i) {
            const Json& e = (*v)[i];
            if (!(e.is_number_integer() || e.is_number_unsigned())) {
                m_problems.add(indexPath(pathOf(field), i), "must be an integer, got " + describe(e));
                return {};
            }
            out.push_back(e.get<int64_t>());
        }
    } else {
        m_problems.add(pathOf(field), "must be an integer or a list of integers, got " + describe(*v));
        return {};
    }
    for (size_t i = 0; i < out.size(); ++i) {
        if (out[i] < minValue) {
            m_problems.add(v->is_array() ? indexPath(pathOf(field), i) : pathOf(field),
                           "must be at least " + std::to_string(minValue) + ", got " + std::to_string(out[i]));
            return {};
        }
    }
    return out;
}

void ObjectReader::accept(std::initializer_list<const char*> fields)
{
    for (const char* f : fields)
        m_known.insert(f);
}

void ObjectReader::finish()
{
    if (!m_object)
        return;
    const std::vector<std::string> known(m_known.begin(), m_known.end());
    for (const auto& [key, value] : m_object->items()) {
        if (m_known.count(key))
            continue;
        std::string message = "unknown field";
        const std::string near = closestName(key, known);
        if (!near.empty())
            message += " (did you mean " + quoted(near) + "?)";
        m_problems.add(pathOf(key), message);
    }
}

} // namespace strata::schema
