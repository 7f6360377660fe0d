#include "app/launch/job/task_stream.h"

#include "app/metrics/event_parse.h"

#include "strata/schema/events.h"

#include <simdjson.h>

#include <algorithm>
#include <utility>
#include <string>
#include <string_view>

namespace strata::app {

namespace {

enum class LineType { Other, Follow, StepRecords, Exit };

// A line's `type` (its last, as nlohmann keeps a repeated key), read without building the
// line's value: every event line passes here, the follower's own lines are few.
LineType lineType(QByteArrayView line)
{
    thread_local simdjson::ondemand::parser parser;
    thread_local std::string buffer;
    buffer.reserve(size_t(line.size()) + simdjson::SIMDJSON_PADDING);
    buffer.assign(line.data(), size_t(line.size()));
    simdjson::ondemand::document document;
    simdjson::ondemand::object object;
    if (parser.iterate(buffer.data(), buffer.size(), buffer.capacity()).get(document) || document.get_object().get(object))
        return LineType::Other;
    LineType type = LineType::Other;
    for (auto member : object) {
        simdjson::ondemand::field field;
        std::string_view key, value;
        if (std::move(member).get(field) || field.unescaped_key().get(key))
            return LineType::Other;
        if (key != "type")
            continue;
        type = LineType::Other;
        if (field.value().get_string().get(value))
            continue;
        if (value == schema::event::kFollow)
            type = LineType::Follow;
        else if (value == schema::event::kStepRecords)
            type = LineType::StepRecords;
        else if (value == schema::event::kExit)
            type = LineType::Exit;
    }
    return type;
}

Json parsed(QByteArrayView line) { return Json::parse(line.begin(), line.end(), nullptr, false); }

// A member that is an integer, else `fallback`.
qint64 integerField(const Json& object, const char* key, qint64 fallback)
{
    const auto it = object.find(key);
    return it == object.end() ? fallback : integerOf(*it).value_or(fallback);
}

std::optional<FollowLine> followLine(QByteArrayView line)
{
    const Json j = parsed(line);
    if (!j.is_object())
        return std::nullopt;
    return FollowLine{integerField(j, "offset", 0), integerField(j, "stderr_offset", 0), integerField(j, "steps_offset", -1)};
}

// The size of the records a `step_records` frame announces.
std::optional<qint64> frameBytes(QByteArrayView line)
{
    const Json j = parsed(line);
    const auto bytes = j.is_object() ? j.find("bytes") : j.end();
    if (bytes == j.end() || !bytes->is_number_unsigned())
        return std::nullopt;
    return bytes->get<qint64>();
}

} // namespace

StreamPiece TaskStream::take(const QByteArray& data)
{
    StreamPiece piece;
    m_pending += data;
    qsizetype at = 0;
    while (at < m_pending.size()) {
        if (m_recordBytesDue > 0) {
            const qsizetype n = qsizetype(std::min<qint64>(m_recordBytesDue, m_pending.size() - at));
            piece.stepRecords.append(m_pending.constData() + at, n);
            m_recordBytesDue -= n;
            at += n;
            continue;
        }
        const qsizetype end = m_pending.indexOf('\n', at);
        if (end < 0)
            break;
        const QByteArrayView line(m_pending.constData() + at, end - at);
        at = end + 1;
        if (line.isEmpty()) // a heartbeat
            continue;
        switch (lineType(line)) {
        case LineType::Follow:
            if (const auto follow = followLine(line)) {
                piece.follow = follow;
                continue;
            }
            break;
        case LineType::StepRecords:
            if (const auto bytes = m_relaysSteps ? frameBytes(line) : std::nullopt) {
                m_recordBytesDue = *bytes;
                continue;
            }
            break;
        case LineType::Exit:
            if (auto taskEnd = exitFromEvent(parsed(line)))
                piece.exit = std::move(taskEnd);
            break;
        case LineType::Other: break;
        }
        piece.eventLines.append(line).append('\n');
    }
    m_pending.remove(0, at);
    return piece;
}

QByteArray TaskStream::takeRest()
{
    QByteArray rest;
    rest.swap(m_pending);
    m_recordBytesDue = 0;
    return rest;
}

void TaskStream::reset(bool relaysSteps)
{
    m_pending.clear();
    m_recordBytesDue = 0;
    m_relaysSteps = relaysSteps;
}

} // namespace strata::app
