#pragma once
// Reading JSON objects field by field, collecting every problem with its field path
// ("training.optimizer.learning_rate") instead of stopping at the first.

#include "strata/core/error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace strata::schema {

using Json = nlohmann::ordered_json;

// Problems found while reading one document.
class Problems {
public:
    void add(std::string path, std::string message) { m_list.push_back({std::move(path), std::move(message)}); }
    bool empty() const { return m_list.empty(); }
    const std::vector<ConfigProblem>& list() const { return m_list; }
    // Throws ConfigError with every problem, if any.
    void throwIfAny() const;

private:
    std::vector<ConfigProblem> m_list;
};

std::string joinPath(const std::string& parent, const std::string& field);
std::string indexPath(const std::string& parent, size_t index);
// "\"abc\"" for messages.
std::string quoted(const std::string& s);
// "string \"abc\"", "number 3.5", "array", ... for messages.
std::string describe(const Json& value);
// The closest name among `candidates` by edit distance, or empty when none is close.
std::string closestName(const std::string& name, const std::vector<std::string>& candidates);

// `value` if it is one of `choices`; otherwise reports at `path` (with a "did you mean")
// and returns an empty string.
std::string readChoice(const Json& value, const std::string& path, const std::vector<std::string>& choices,
                       Problems& problems);

// Reads one JSON object. Every accessor marks its field as known; finish() reports the
// fields nobody asked for as unknown (with a "did you mean" when one is close).
class ObjectReader {
public:
    ObjectReader(const Json& object, std::string path, Problems& problems);

    bool valid() const { return m_object != nullptr; }
    const std::string& path() const { return m_path; }
    std::string pathOf(const std::string& field) const { return joinPath(m_path, field); }
    bool has(const std::string& field) const;

    // The raw child (marked known), or nullptr when absent or null.
    const Json* child(const std::string& field);

    std::optional<int64_t> maybeInteger(const std::string& field, bool required,
                                   int64_t min = std::numeric_limits<int64_t>::min(),
                                   int64_t max = std::numeric_limits<int64_t>::max());
    int64_t integer(const std::string& field, int64_t fallback,
                    int64_t min = std::numeric_limits<int64_t>::min(),
                    int64_t max = std::numeric_limits<int64_t>::max());
    // `exclusiveMin`: the value must be greater than `min`, not equal.
    double number(const std::string& field, double fallback, double min = -std::numeric_limits<double>::infinity(),
                  double max = std::numeric_limits<double>::infinity(), bool exclusiveMin = false);
    bool boolean(const std::string& field, bool fallback);
    std::optional<std::string> maybeString(const std::string& field, bool required);
    std::string string(const std::string& field, const std::string& fallback);
    std::string choice(const std::string& field, const std::string& fallback, const std::vector<std::string>& choices);
    std::vector<int64_t> integerList(const std::string& field, int64_t minValue);

    // Marks fields as known without reading them.
    void accept(std::initializer_list<const char*> fields);
    // Reports unknown fields.
    void finish();

    Problems& problems() { return m_problems; }

private:
    const Json* m_object = nullptr;
    std::string m_path;
    Problems& m_problems;
    std::set<std::string> m_known;
};

} // namespace strata::schema
