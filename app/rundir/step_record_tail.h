#pragma once
// StepRecordTail: a task's full-resolution step records (<run dir>/steps-<task>.jsonl,
// docs/event-schema.md) read as the file grows. Each read() takes what was appended since
// the last one, from where the whole lines read so far end: a line still being written (no
// newline yet) is kept and completed by the next read, never parsed in halves. A file that
// does not exist yet reads as empty.
//
// Records are parsed with the calling thread's EventParser (parseStepRecord); lines that are
// not records (not a JSON object, or without a `step`: the torn last line of an engine
// killed mid-write, ended by the next session) are counted in skipped(), not handed out.
//
// Threads: one thread at a time (the launcher's ingest thread, or the one replaying a run).

#include "app/metrics/event_parse.h"

#include <QByteArray>
#include <QFile>
#include <QString>

#include <cstdint>
#include <vector>

namespace strata::app {

class StepRecordTail {
public:
    static constexpr qint64 kChunk = qint64(1) << 20; // bytes read at most per read()

    // Reads `path` from `offset` (the start of a line) on.
    explicit StepRecordTail(QString path, qint64 offset = 0);

    // Appends the records of what was appended to the file since the last call (at most
    // `maxBytes` of it) to `records`, in order. False with the reason, naming the file, when
    // it exists and cannot be read.
    bool read(std::vector<ParsedEvent>& records, QString* error, qint64 maxBytes = kChunk);
    // Where the whole lines read so far end in the file.
    qint64 offset() const { return m_offset - m_partial.size(); }
    // The last read() reached the end of the file (as it was then).
    bool atEnd() const { return m_atEnd; }
    int64_t skipped() const { return m_skipped; }
    QString path() const { return m_file.fileName(); }

    // The step a record was made at (its `step`).
    static int64_t stepOf(const ParsedEvent& record) { return record.step.step.value_or(0); }

private:
    QFile m_file;
    qint64 m_offset = 0;  // bytes read from the file (m_partial included)
    QByteArray m_partial; // after the last newline read
    int64_t m_skipped = 0;
    bool m_atEnd = false;
};

} // namespace strata::app
