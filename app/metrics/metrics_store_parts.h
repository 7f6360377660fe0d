#pragma once
// What the MetricsStore's sources (metrics_store*.cpp, lifecycle_text.cpp) share: field readers
// for an event's Json, the bits of the series step records carry, and the task's replica
// lookup. Internal to them (`using namespace store_parts` there); not for other rooms.

#include "app/metrics/metrics_store.h"

#include "strata/schema/events.h"

#include <QDateTime>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

namespace strata::app::store_parts {

// An evaluator task's report on one checkpoint of the chief (its step, epoch, checkpoint,
// metrics, examples, ms).
constexpr std::string_view kEvaluation = schema::event::kEvaluation;

// Field readers that never throw: an event with a field of the wrong type is still stored
// with what is usable in it.
inline double number(const Json& j, const char* key, double fallback = std::numeric_limits<double>::quiet_NaN())
{
    const auto it = j.find(key);
    return it != j.end() ? numberOf(*it).value_or(fallback) : fallback;
}

inline int64_t integer(const Json& j, const char* key, int64_t fallback)
{
    const auto it = j.find(key);
    return it != j.end() ? integerOf(*it).value_or(fallback) : fallback;
}

inline QString text(const Json& j, const char* key, const QString& fallback = {})
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? QString::fromStdString(it->get_ref<const std::string&>()) : fallback;
}

inline const Json& member(const Json& j, const char* key)
{
    static const Json null;
    const auto it = j.find(key);
    return it != j.end() ? *it : null;
}

// NaN: nothing to add (the field was absent or not a number).
inline void appendNumber(Series& series, double x, double v)
{
    if (!std::isnan(v))
        series.append(x, float(v));
}

// The series step records carry (TaskData::StepRecords::fields): a live step's value for one
// of them is not drawn where records drew it.
enum RecordField : unsigned {
    kLossField = 1u << 0,
    kReplicaLossField = 1u << 1,
    kStepMsField = 1u << 2,
    kComputeMsField = 1u << 3,
    kCommMsField = 1u << 4,
    kInputMsField = 1u << 5,
    kStalenessMeanField = 1u << 6,
    kStalenessMaxField = 1u << 7,
    kWallField = 1u << 8,
};

inline ReplicaData& replicaData(TaskData& td, int replica, const QString& device)
{
    // Kept in replica order; a handful at most.
    auto it = std::lower_bound(td.replicas.begin(), td.replicas.end(), replica,
                               [](const ReplicaData& r, int index) { return r.replica < index; });
    if (it == td.replicas.end() || it->replica != replica) {
        it = td.replicas.emplace(it);
        it->replica = replica;
    }
    if (!device.isEmpty() && it->device != device)
        it->device = device;
    return *it;
}

inline double now()
{
    return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
}

} // namespace strata::app::store_parts
