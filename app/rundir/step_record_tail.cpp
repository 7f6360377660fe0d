#include "app/rundir/step_record_tail.h"

#include <QObject>

#include <algorithm>
#include <optional>
#include <string_view>

namespace strata::app {

StepRecordTail::StepRecordTail(QString path, qint64 offset) : m_file(path), m_offset(offset) {}

bool StepRecordTail::read(std::vector<ParsedEvent>& records, QString* error, qint64 maxBytes)
{
    m_atEnd = true;
    if (!m_file.isOpen()) {
        if (!m_file.exists())
            return true;
        if (!m_file.open(QIODevice::ReadOnly | QIODevice::Unbuffered)) {
            *error = QObject::tr("Cannot read %1: %2").arg(m_file.fileName(), m_file.errorString());
            return false;
        }
    }
    const qint64 available = std::min(m_file.size() - m_offset, maxBytes);
    if (available <= 0)
        return true;
    if (!m_file.seek(m_offset)) {
        *error = QObject::tr("Cannot read %1: %2").arg(m_file.fileName(), m_file.errorString());
        return false;
    }
    const qsizetype had = m_partial.size();
    m_partial.resize(had + available);
    const qint64 n = m_file.read(m_partial.data() + had, available);
    if (n < 0) {
        m_partial.resize(had);
        *error = QObject::tr("Cannot read %1: %2").arg(m_file.fileName(), m_file.errorString());
        return false;
    }
    m_partial.resize(had + n);
    m_offset += n;
    m_atEnd = m_offset >= m_file.size();

    EventParser& parser = EventParser::forThisThread();
    const qsizetype whole = m_partial.lastIndexOf('\n') + 1;
    const std::string_view lines(m_partial.constData(), size_t(whole));
    for (size_t from = 0; from < lines.size();) {
        const size_t to = lines.find('\n', from);
        std::optional<ParsedEvent> record = parser.parseStepRecord(lines.substr(from, to - from));
        from = to + 1;
        if (!record)
            continue; // a blank line
        if (record->kind == ParsedEvent::Kind::Step && record->step.step)
            records.push_back(std::move(*record));
        else
            ++m_skipped;
    }
    m_partial.remove(0, whole);
    return true;
}

} // namespace strata::app
