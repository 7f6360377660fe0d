#include "app/metrics/event_parse.h"

#include "strata/schema/events.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <unordered_map>
#include <unordered_set>

namespace strata::app {

namespace {

constexpr double kNone = StepEvent::kNone;
// Lines up to this size are parsed by the thread's parser, which keeps its buffers (about 14
// bytes per byte of the longest line); a longer one by a parser of its own, freed after it.
constexpr size_t kKeptCapacity = size_t(1) << 20;
constexpr size_t kInitialCapacity = size_t(4) << 10;
constexpr size_t kInterned = 256; // names kept by intern() before it starts afresh

// The two sources of events behind one interface, so that every field is read by the same
// code (EventParser::read, readStepField) with the same rules: a value of the wrong type is
// absent; numbers convert as nlohmann's get<T>() converts them.
// An integer read from a float: truncated, as nlohmann's get<int64_t>() does; nothing when the
// float is beyond int64's range or NaN (a conversion C++ leaves undefined).
std::optional<int64_t> truncated(double v)
{
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
        return std::nullopt;
    return int64_t(v);
}

class JsonValue {
public:
    explicit JsonValue(const Json& value) : m_value(value) {}

    bool isObject() const { return m_value.is_object(); }
    double number() const { return numberOf(m_value).value_or(kNone); }
    std::optional<int64_t> integer() const { return integerOf(m_value); }
    std::optional<float> real() const
    {
        return m_value.is_number() ? std::optional<float>(m_value.get<float>()) : std::nullopt;
    }
    std::optional<std::string_view> text() const
    {
        return m_value.is_string() ? std::optional<std::string_view>(m_value.get_ref<const std::string&>())
                                   : std::nullopt;
    }
    template<typename Fn>
    void forEachField(Fn fn) const
    {
        if (m_value.is_object())
            for (const auto& [key, value] : m_value.get_ref<const Json::object_t&>())
                fn(std::string_view(key), JsonValue(value));
    }
    template<typename Fn>
    void forEachElement(Fn fn) const
    {
        if (m_value.is_array())
            for (const Json& value : m_value)
                fn(JsonValue(value));
    }
    Json toJson() const { return m_value; }

private:
    const Json& m_value;
};

class DomValue {
public:
    using Type = simdjson::dom::element_type;

    explicit DomValue(simdjson::dom::element value) : m_value(value) {}

    bool isObject() const { return m_value.type() == Type::OBJECT; }
    double number() const
    {
        switch (m_value.type()) {
        case Type::INT64: return double(m_value.get_int64().value_unsafe());
        case Type::UINT64: return double(m_value.get_uint64().value_unsafe());
        case Type::DOUBLE: return m_value.get_double().value_unsafe();
        default: return kNone;
        }
    }
    std::optional<int64_t> integer() const
    {
        switch (m_value.type()) {
        case Type::INT64: return m_value.get_int64().value_unsafe();
        case Type::UINT64: return int64_t(m_value.get_uint64().value_unsafe());
        case Type::DOUBLE: return truncated(m_value.get_double().value_unsafe());
        default: return std::nullopt;
        }
    }
    std::optional<float> real() const
    {
        switch (m_value.type()) {
        case Type::INT64: return float(m_value.get_int64().value_unsafe());
        case Type::UINT64: return float(m_value.get_uint64().value_unsafe());
        case Type::DOUBLE: return float(m_value.get_double().value_unsafe());
        default: return std::nullopt;
        }
    }
    std::optional<std::string_view> text() const
    {
        return m_value.type() == Type::STRING ? std::optional<std::string_view>(m_value.get_string().value_unsafe())
                                              : std::nullopt;
    }
    // The fields as nlohmann's parser keeps them: a key given twice once, in the place of its
    // first occurrence, with its last value. Read in the text's order instead, two fields that
    // give one value (`time_ms` and `step_ms`, say) would count in another order than in the
    // line's Json.
    template<typename Fn>
    void forEachField(Fn fn) const
    {
        if (m_value.type() != Type::OBJECT)
            return;
        const simdjson::dom::object fields = object();
        if (!repeatsAKey(fields)) {
            for (const simdjson::dom::key_value_pair field : fields)
                fn(field.key, DomValue(field.value));
            return;
        }
        std::vector<std::pair<std::string_view, simdjson::dom::element>> unique;
        std::unordered_map<std::string_view, size_t> place;
        for (const simdjson::dom::key_value_pair field : fields) {
            const auto [at, first] = place.try_emplace(field.key, unique.size());
            if (first)
                unique.emplace_back(field.key, field.value);
            else
                unique[at->second].second = field.value;
        }
        for (const auto& [key, value] : unique)
            fn(key, DomValue(value));
    }
    template<typename Fn>
    void forEachElement(Fn fn) const
    {
        if (m_value.type() == Type::ARRAY)
            for (const simdjson::dom::element value : array())
                fn(DomValue(value));
    }
    // What nlohmann's parser makes of the same text: integers from 0 up unsigned, a key given
    // twice holding its last value in its first place.
    Json toJson() const
    {
        switch (m_value.type()) {
        case Type::OBJECT: {
            Json object = Json::object();
            for (const simdjson::dom::key_value_pair field : this->object())
                object[std::string(field.key)] = DomValue(field.value).toJson();
            return object;
        }
        case Type::ARRAY: {
            Json array = Json::array();
            for (const simdjson::dom::element value : this->array())
                array.push_back(DomValue(value).toJson());
            return array;
        }
        case Type::INT64: {
            const int64_t v = m_value.get_int64().value_unsafe();
            return v >= 0 ? Json(uint64_t(v)) : Json(v);
        }
        case Type::UINT64: return Json(m_value.get_uint64().value_unsafe());
        case Type::DOUBLE: return Json(m_value.get_double().value_unsafe());
        case Type::STRING: return Json(std::string(m_value.get_string().value_unsafe()));
        case Type::BOOL: return Json(m_value.get_bool().value_unsafe());
        case Type::NULL_VALUE: return Json();
        }
        return Json();
    }

private:
    // Pairwise among an event's few fields; with a set beyond them (a crafted line of 100,000
    // keys must not take quadratic time).
    static bool repeatsAKey(const simdjson::dom::object& fields)
    {
        if (fields.size() <= 24) {
            for (auto a = fields.begin(); a != fields.end(); ++a)
                for (auto b = std::next(a); b != fields.end(); ++b)
                    if (a.key() == b.key())
                        return true;
            return false;
        }
        std::unordered_set<std::string_view> seen;
        seen.reserve(fields.size());
        for (const simdjson::dom::key_value_pair field : fields)
            if (!seen.insert(field.key).second)
                return true;
        return false;
    }
    // Copies (a reference into the parsed document): a range-for over get_object().value_unsafe()
    // would iterate a temporary destroyed before the loop starts.
    simdjson::dom::object object() const { return m_value.get_object().value_unsafe(); }
    simdjson::dom::array array() const { return m_value.get_array().value_unsafe(); }

    simdjson::dom::element m_value;
};

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

// key == name, with the length known to the compiler (the comparison is then inlined).
template<size_t N>
bool is(std::string_view key, const char (&name)[N])
{
    return key.size() == N - 1 && std::memcmp(key.data(), name, N - 1) == 0;
}

} // namespace

std::optional<double> numberOf(const Json& value)
{
    return value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt;
}

std::optional<int64_t> integerOf(const Json& value)
{
    if (!value.is_number())
        return std::nullopt;
    return value.is_number_float() ? truncated(value.get<double>()) : value.get<int64_t>();
}

struct EventParser::Simd {
    simdjson::dom::parser parser;
    std::vector<char> buffer; // a line and simdjson's padding after it
};

std::string_view ParsedEvent::type() const
{
    if (kind == Kind::Step)
        return schema::event::kStep;
    const auto it = kind == Kind::Other ? json.find("type") : json.end();
    return it != json.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                               : std::string_view();
}

EventParser::EventParser() : m_simd(std::make_unique<Simd>()) {}

EventParser::~EventParser() = default;

EventParser& EventParser::forThisThread()
{
    thread_local EventParser parser;
    return parser;
}

void EventParser::parseLines(const char* data, size_t size, std::vector<ParsedEvent>& events)
{
    const char* p = data;
    const char* const end = data + size;
    while (p < end) {
        const char* eol = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
        if (!eol)
            eol = end;
        if (std::optional<ParsedEvent> event = parseLine(std::string_view(p, size_t(eol - p))))
            events.push_back(std::move(*event));
        p = eol + 1;
    }
}

std::optional<ParsedEvent> EventParser::parseStepRecord(std::string_view line)
{
    struct Reset {
        bool& flag;
        ~Reset() { flag = false; }
    } reset{m_stepRecords = true};
    return parseLine(line);
}

std::optional<ParsedEvent> EventParser::parseLine(std::string_view line)
{
    const char* first = line.data();
    const char* last = first + line.size();
    while (last > first && (last[-1] == '\r' || isBlank(last[-1])))
        --last;
    while (first < last && isBlank(*first))
        ++first;
    if (first == last)
        return std::nullopt;
    const std::string_view trimmed(first, size_t(last - first));
    // nlohmann skips a byte order mark only as a line's first bytes; simdjson, handed the line
    // without its blanks, would skip one that follows them.
    if (first != line.data() && trimmed.starts_with("\xEF\xBB\xBF")) {
        ParsedEvent event;
        event.line = QByteArray(trimmed.data(), qsizetype(trimmed.size()));
        return event;
    }
    return parseTrimmed(trimmed);
}

ParsedEvent EventParser::parseTrimmed(std::string_view line)
{
    const auto readDocument = [&](simdjson::simdjson_result<simdjson::dom::element> document) {
        ParsedEvent event;
        if (!document.error()) {
            event = read(DomValue(document.value_unsafe()));
        } else {
            // simdjson's refusals are not all nlohmann's (big integers become floats there).
            const Json json = Json::parse(line.begin(), line.end(), nullptr, false);
            if (!json.is_discarded())
                event = read(JsonValue(json));
        }
        if (event.kind == ParsedEvent::Kind::NotAnEvent)
            event.line = QByteArray(line.data(), qsizetype(line.size()));
        return event;
    };
    if (line.size() > kKeptCapacity) {
        simdjson::dom::parser once;
        return readDocument(once.parse(line.data(), line.size()));
    }
    // Grown geometrically: a parser allocates for the longest document it has seen.
    simdjson::dom::parser& parser = m_simd->parser;
    std::vector<char>& buffer = m_simd->buffer;
    if (line.size() > parser.capacity()) {
        const size_t capacity = std::clamp(2 * parser.capacity(), std::max(line.size(), kInitialCapacity), kKeptCapacity);
        if (parser.allocate(capacity) != simdjson::SUCCESS)
            throw std::bad_alloc();
        buffer.resize(capacity + simdjson::SIMDJSON_PADDING);
    }
    std::memcpy(buffer.data(), line.data(), line.size());
    return readDocument(parser.parse(buffer.data(), line.size(), false));
}

ParsedEvent EventParser::fromJson(const Json& event)
{
    ParsedEvent parsed = read(JsonValue(event));
    if (parsed.kind == ParsedEvent::Kind::NotAnEvent)
        parsed.line = QByteArray::fromStdString(event.dump());
    return parsed;
}

template<typename Value>
ParsedEvent EventParser::read(const Value& root)
{
    ParsedEvent event;
    if (!root.isObject())
        return event;
    std::optional<std::string_view> type;
    // One pass over the fields: those of every event, and those of a step, dropped when it is
    // something else (rare: steps are nearly the whole stream).
    root.forEachField([&](std::string_view key, const Value& value) {
        if (is(key, "t")) {
            event.t = value.number();
        } else if (is(key, "type")) {
            type = value.text();
        } else if (is(key, "task")) {
            const std::optional<std::string_view> task = value.text();
            event.task = task ? std::optional<QString>(intern(*task)) : std::nullopt;
        } else {
            readStepField(key, value, event.step);
        }
    });
    if (type == schema::event::kStep || m_stepRecords) {
        event.kind = ParsedEvent::Kind::Step;
        if (event.step.trace)
            event.step.trace->step = event.step.step.value_or(0);
    } else {
        event.kind = ParsedEvent::Kind::Other;
        event.step = {};
        event.json = root.toJson();
    }
    return event;
}

template<typename Value>
void EventParser::readStepField(std::string_view key, const Value& value, StepEvent& step)
{
    if (is(key, "step")) {
        step.step = value.integer();
    } else if (is(key, "epoch")) {
        step.epoch = value.integer();
    } else if (is(key, "loss")) {
        step.loss = value.number();
    } else if (is(key, "lr")) {
        step.lr = value.number();
    } else if (is(key, "samples")) {
        step.samples = value.number();
    } else if (is(key, "replica_loss")) { // a step record's
        step.replicas.clear();
        int index = 0; // a replica's position, whatever its neighbours are
        value.forEachElement([&](const Value& loss) {
            if (const double v = loss.number(); !std::isnan(v))
                step.replicas.push_back({index, QString(), v, kNone});
            ++index;
        });
    } else if (is(key, "samples_per_sec") || is(key, "samples_per_s")) {
        step.samplesPerSec = value.number();
    } else if (is(key, "step_ms")) { // the flat forms of `time_ms` (ParameterServer workers)
        step.stepMs = value.number();
    } else if (is(key, "compute_ms")) {
        step.computeMs = value.number();
    } else if (is(key, "comm_ms")) {
        step.commMs = value.number();
    } else if (is(key, "input_ms")) {
        step.inputMs = value.number();
    } else if (is(key, "global_step")) {
        step.globalStep = value.integer();
    } else if (is(key, "staleness_mean")) {
        step.stalenessMean = value.number();
    } else if (is(key, "staleness_max")) {
        step.stalenessMax = value.number();
    } else if (is(key, "workers")) {
        readWorkers(value, step);
    } else if (is(key, "time_ms")) {
        step.stepMs = step.computeMs = step.commMs = step.inputMs = kNone;
        value.forEachField([&](std::string_view name, const Value& ms) {
            if (is(name, "step"))
                step.stepMs = ms.number();
            else if (is(name, "compute"))
                step.computeMs = ms.number();
            else if (is(name, "comm"))
                step.commMs = ms.number();
            else if (is(name, "input"))
                step.inputMs = ms.number();
        });
    } else if (is(key, "metrics")) {
        step.metrics.clear();
        value.forEachField([&](std::string_view name, const Value& metric) {
            if (const std::optional<float> v = metric.real())
                step.metrics.push_back({intern(name), *v});
        });
    } else if (is(key, "replicas")) {
        readReplicas(value, step);
    } else if (is(key, "trace")) {
        readTrace(value, step);
    }
}

template<typename Value>
void EventParser::readWorkers(const Value& value, StepEvent& step)
{
    step.workers.clear();
    value.forEachElement([&](const Value& worker) {
        if (!worker.isObject())
            return;
        StepEvent::Worker w;
        worker.forEachField([&](std::string_view name, const Value& field) {
            if (is(name, "task")) {
                const std::optional<std::string_view> task = field.text();
                w.task = task ? intern(*task) : QString();
            } else if (is(name, "steps")) {
                w.steps = field.integer().value_or(0);
            } else if (is(name, "samples_per_s")) {
                w.samplesPerSec = field.number();
            } else if (is(name, "staleness_mean")) {
                w.stalenessMean = field.number();
            } else if (is(name, "staleness_max")) {
                w.stalenessMax = field.number();
            } else if (is(name, "state")) {
                const std::optional<std::string_view> state = field.text();
                w.state = state ? intern(*state) : QString();
            }
        });
        step.workers.push_back(std::move(w));
    });
}

template<typename Value>
void EventParser::readReplicas(const Value& value, StepEvent& step)
{
    step.replicas.clear();
    int index = 0;
    value.forEachElement([&](const Value& replica) {
        if (replica.isObject()) {
            StepEvent::Replica r;
            r.replica = index;
            replica.forEachField([&](std::string_view name, const Value& field) {
                if (is(name, "replica")) {
                    r.replica = int(field.integer().value_or(index));
                } else if (is(name, "device")) {
                    const std::optional<std::string_view> device = field.text();
                    r.device = device ? intern(*device) : QString();
                } else if (is(name, "loss")) {
                    r.loss = field.number();
                } else if (is(name, "samples")) {
                    r.samples = field.number();
                }
            });
            step.replicas.push_back(std::move(r));
        }
        ++index;
    });
}

template<typename Value>
void EventParser::readTrace(const Value& value, StepEvent& step)
{
    step.trace.reset();
    StepTrace trace;
    bool hasT0 = false;
    value.forEachField([&](std::string_view name, const Value& field) {
        if (is(name, "t0")) {
            const std::optional<int64_t> t0 = field.integer();
            hasT0 = t0.has_value();
            trace.t0Us = t0.value_or(0);
        } else if (is(name, "clock_offset_us")) {
            trace.clockOffsetUs = field.integer();
        } else if (is(name, "spans")) {
            trace.spans.clear();
            field.forEachElement([&](const Value& span) {
                // [lane, name, start, duration]: anything else is no span.
                std::optional<std::string_view> lane, spanName;
                std::optional<int64_t> start, duration;
                int index = 0;
                span.forEachElement([&](const Value& part) {
                    switch (index++) {
                    case 0: lane = part.text(); break;
                    case 1: spanName = part.text(); break;
                    case 2: start = part.integer(); break;
                    case 3: duration = part.integer(); break;
                    default: break;
                    }
                });
                if (index == 4 && lane && spanName && start && duration && *duration >= 0)
                    trace.spans.push_back({intern(*lane), intern(*spanName), *start, *duration});
            });
        }
    });
    if (hasT0)
        step.trace = std::move(trace);
}

const QString& EventParser::intern(std::string_view utf8)
{
    for (const auto& [text, name] : m_names)
        if (text.size() == utf8.size() && std::memcmp(text.data(), utf8.data(), utf8.size()) == 0)
            return name;
    if (m_names.size() >= kInterned)
        m_names.clear();
    m_names.emplace_back(std::string(utf8), QString::fromUtf8(utf8.data(), qsizetype(utf8.size())));
    return m_names.back().second;
}

} // namespace strata::app
