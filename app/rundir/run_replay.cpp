#include "app/rundir/run_replay.h"

#include "app/metrics/event_parse.h"
#include "app/rundir/step_record_tail.h"
#include "app/rundir/task_ends.h"
#include "app/rundir/task_places.h"

#include "strata/schema/events.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

namespace strata::app {

namespace {

constexpr qint64 kChunk = qint64(1) << 20; // bytes of an events file read at a time
constexpr size_t kBatch = 4096;            // events handed to the store under one lock at most

// A task's events file, read and parsed a chunk at a time (a run of hours has millions of
// events, and holding them all parsed would take gigabytes), then the task's end.
class TaskStream {
public:
    QString task;
    std::optional<TaskEnd> end; // after the last event
    bool endFromFile = false;   // `end` is tasks.json's
    std::optional<TaskEnd> applied; // the end, once in the store
    bool wholeLines = false;    // a torn last line is left unread (the run goes on)

    // Opens an events file at its last session (the last line that is a `hello`: a run
    // resumed into the same directory appends a session per process). False with the reason.
    bool open(const QString& path, EventParser& parser, QString* error)
    {
        m_file = std::make_unique<QFile>(path);
        if (!m_file->open(QIODevice::ReadOnly)) {
            *error = QObject::tr("Cannot read %1: %2").arg(path, m_file->errorString());
            return false;
        }
        qint64 session = 0, offset = 0; // offset: where m_buffer starts in the file
        for (bool last = false; !last;) {
            qsizetype complete = 0;
            if (!readLines(&complete, &last, error))
                return false;
            // Only a line naming `hello` can be one: the others are not parsed twice.
            const std::string_view lines(m_buffer.constData(), size_t(complete));
            for (size_t at = lines.find(schema::event::kHello); at != std::string_view::npos;) {
                const size_t from = lines.rfind('\n', at) + 1; // npos + 1: the first line
                const size_t to = std::min(lines.find('\n', at), lines.size());
                const std::optional<ParsedEvent> event = parser.parseLine(lines.substr(from, to - from));
                if (event && event->type() == schema::event::kHello)
                    session = offset + qint64(from);
                at = to < lines.size() ? lines.find(schema::event::kHello, to) : std::string_view::npos;
            }
            m_buffer.remove(0, complete);
            offset += complete;
        }
        if (!m_file->seek(session)) {
            *error = QObject::tr("Cannot read %1: %2").arg(path, m_file->errorString());
            return false;
        }
        m_buffer.clear();
        m_consumed = session;
        return fill(parser, error);
    }

    // The bytes of the file read as whole lines so far.
    qint64 consumed() const { return m_consumed; }

    // Reads the task's step records too, those of the session replayed: made at or after its
    // first event (a directory resumed into holds every session's records, as its events file
    // does; a record of an engine before records had their time counts as this session's).
    void openRecords(const QString& path)
    {
        m_records = std::make_unique<StepRecordTail>(path);
        m_sessionStart = event() && std::isfinite(event()->t) ? event()->t : -std::numeric_limits<double>::infinity();
    }
    // The records up to step `upTo`, in order, moved into `out`. False with the reason when the
    // file fails.
    bool takeRecords(int64_t upTo, std::vector<ParsedEvent>& out, QString* error)
    {
        while (m_records) {
            for (; m_nextRecord < m_pendingRecords.size(); ++m_nextRecord) {
                ParsedEvent& record = m_pendingRecords[m_nextRecord];
                if (StepRecordTail::stepOf(record) > upTo)
                    return true;
                if (!(record.t < m_sessionStart))
                    out.push_back(std::move(record));
            }
            m_pendingRecords.clear();
            m_nextRecord = 0;
            if (!m_records->read(m_pendingRecords, error))
                return false;
            if (m_pendingRecords.empty() && m_records->atEnd())
                return true;
        }
        return true;
    }
    // The bytes of the steps file read as whole lines so far.
    qint64 recordsConsumed() const { return m_records ? m_records->offset() : 0; }

    // The next event, or null when none is left (the end may be).
    ParsedEvent* event() { return m_next < m_events.size() ? &m_events[m_next] : nullptr; }
    // The task's end once its events are all taken, or null.
    const TaskEnd* endItem() const { return m_next == m_events.size() && !m_file && end ? &*end : nullptr; }
    bool atEnd() const { return m_next == m_events.size() && !endItem(); }
    // When the next item happened, for interleaving tasks: its `t`, else that of the last
    // event before it with one; the end at its time.
    double time() const
    {
        if (m_next < m_events.size() && std::isfinite(m_events[m_next].t))
            return m_events[m_next].t;
        return m_next == m_events.size() && end ? end->time : m_t;
    }
    // Moves past the next event; false with the reason when the file fails.
    // The next event, moved out (advance() goes past it).
    ParsedEvent take()
    {
        // The supervisor's account of how the task ended, when tasks.json has none.
        if (!endFromFile && m_events[m_next].type() == schema::event::kExit)
            if (auto e = exitFromEvent(m_events[m_next].json)) {
                e->task = task;
                end = std::move(e);
            }
        return std::move(m_events[m_next]);
    }
    bool advance(EventParser& parser, QString* error)
    {
        if (std::isfinite(m_events[m_next].t))
            m_t = m_events[m_next].t;
        if (++m_next < m_events.size())
            return true;
        return fill(parser, error);
    }

private:
    // Appends a chunk of the file to m_buffer; `complete`: the bytes of whole lines in it (all
    // of them at the end of the file, `last`).
    bool readLines(qsizetype* complete, bool* last, QString* error)
    {
        const qsizetype had = m_buffer.size();
        m_buffer.resize(had + kChunk);
        const qint64 n = m_file->read(m_buffer.data() + had, kChunk);
        if (n < 0) {
            *error = QObject::tr("Cannot read %1: %2").arg(m_file->fileName(), m_file->errorString());
            return false;
        }
        m_buffer.resize(had + n);
        *last = n == 0;
        *complete = *last && !wholeLines ? m_buffer.size() : m_buffer.lastIndexOf('\n') + 1;
        return true;
    }

    // The events of the next chunk holding any; at the end of the file, none.
    bool fill(EventParser& parser, QString* error)
    {
        m_events.clear();
        m_next = 0;
        while (m_file && m_events.empty()) {
            qsizetype complete = 0;
            bool last = false;
            if (!readLines(&complete, &last, error))
                return false;
            parser.parseLines(m_buffer.constData(), size_t(complete), m_events);
            m_buffer.remove(0, complete);
            m_consumed += complete;
            if (last)
                m_file.reset();
        }
        return true;
    }

    std::unique_ptr<QFile> m_file; // null once read to its end
    QByteArray m_buffer;           // read, not parsed yet: the start of a line
    std::vector<ParsedEvent> m_events;
    size_t m_next = 0;
    double m_t = 0;
    qint64 m_consumed = 0;
    std::unique_ptr<StepRecordTail> m_records;
    double m_sessionStart = 0;
    std::vector<ParsedEvent> m_pendingRecords; // read, not handed out from m_nextRecord on
    size_t m_nextRecord = 0;
};

// The stream whose next item comes first: the earliest time, the first stream of equal ones.
TaskStream* earliest(std::vector<TaskStream>& streams)
{
    TaskStream* first = nullptr;
    for (TaskStream& s : streams)
        if (!s.atEnd() && (!first || s.time() < first->time()))
            first = &s;
    return first;
}

// The task of an events file: its first event's `task`, else the task of tasks.json with that
// file name, else the file's own name.
QString taskOf(const QString& stem, const ParsedEvent* first, const std::vector<TaskEnd>& ends)
{
    if (first && first->task)
        return *first->task;
    for (const TaskEnd& end : ends)
        if (taskFileStem(end.task) == stem)
            return end.task;
    return stem;
}

// A stream per events file (with its step records) and per task end in tasks.json.
bool openStreams(const QDir& dir, const QStringList& files, const std::vector<TaskEnd>& ends, bool wholeLines,
                 EventParser& parser, std::vector<TaskStream>& streams, QString* error)
{
    streams.resize(size_t(files.size()));
    for (qsizetype i = 0; i < files.size(); ++i) {
        TaskStream& s = streams[size_t(i)];
        s.wholeLines = wholeLines;
        if (!s.open(dir.filePath(files[i]), parser, error))
            return false;
        const QString stem = files[i].mid(7, files[i].size() - 7 - 6); // events-<stem>.jsonl
        s.task = taskOf(stem, s.event(), ends);
        s.openRecords(dir.filePath("steps-" + stem + ".jsonl"));
    }
    // Each task's end after its events; a task that wrote no events (it never started, or died
    // before its first) has only its end.
    for (const TaskEnd& end : ends) {
        auto it = std::find_if(streams.begin(), streams.end(), [&](const TaskStream& s) { return s.task == end.task; });
        if (it == streams.end()) {
            streams.emplace_back().task = end.task;
            it = streams.end() - 1;
        }
        it->end = end;
        it->endFromFile = true;
    }
    return true;
}

bool replay(std::vector<TaskStream>& streams, MetricsStore& store, EventParser& parser, QString* error)
{
    // The tasks interleaved by time, each in its own order, as they reached the store live; a
    // task's events up to the next item of another (or its end) go in as one batch.
    // Each batch goes in with the task's step records up to its last live step (all that are
    // left once its events are), as the launcher hands them over live.
    std::vector<ParsedEvent> batch, records;
    while (TaskStream* s = earliest(streams)) {
        if (const TaskEnd* end = s->endItem()) {
            applyTaskEnd(store, *end);
            s->applied = *end;
            s->end.reset();
            continue;
        }
        bool ok = true;
        int64_t lastStep = std::numeric_limits<int64_t>::min();
        do {
            batch.push_back(s->take());
            if (batch.back().kind == ParsedEvent::Kind::Step && batch.back().step.step)
                lastStep = std::max(lastStep, *batch.back().step.step);
            ok = s->advance(parser, error);
        } while (ok && batch.size() < kBatch && s->event() && earliest(streams) == s);
        ok = ok && s->takeRecords(s->event() ? lastStep : std::numeric_limits<int64_t>::max(), records, error);
        store.ingest(s->task, std::move(batch), std::move(records));
        batch.clear();
        records.clear();
        if (!ok)
            return false;
    }
    return true;
}

} // namespace

bool loadRun(const QString& runDir, MetricsStore& store, QString* error)
{
    return loadRun(runDir, store, error, nullptr);
}

bool loadRun(const QString& runDir, MetricsStore& store, QString* error, std::map<QString, ReplayPosition>* positions)
{
    const QDir dir(runDir);
    if (!QFileInfo(runDir).isDir()) {
        *error = QObject::tr("The run directory %1 does not exist.").arg(runDir);
        return false;
    }
    std::vector<TaskEnd> ends;
    if (!readTaskEnds(runDir, ends, error))
        return false;
    const QStringList files = dir.entryList({QStringLiteral("events-*.jsonl")}, QDir::Files, QDir::Name);
    if (files.isEmpty() && ends.empty()) {
        *error = QObject::tr("%1 is not a run directory: it holds no event files (events-<task>.jsonl).").arg(runDir);
        return false;
    }

    EventParser& parser = EventParser::forThisThread();
    std::vector<TaskStream> streams;
    if (!openStreams(dir, files, ends, positions != nullptr, parser, streams, error))
        return false;
    if (std::all_of(streams.begin(), streams.end(), [](const TaskStream& s) { return s.atEnd(); })) {
        *error = QObject::tr("The event files of %1 are empty.").arg(runDir);
        return false;
    }

    store.clear();
    // Where each task ran, as the launcher told the store before starting them (a run without
    // nodes.json, or with one that cannot be read, shows the hosts its engines named).
    std::vector<TaskPlace> places;
    QString placesError;
    if (readTaskPlaces(runDir, places, &placesError))
        for (const TaskPlace& p : places)
            store.setTaskPlace(p.task, p.node, p.host);
    if (!replay(streams, store, parser, error))
        return false;
    if (positions)
        for (const TaskStream& s : streams)
            (*positions)[s.task] = {s.consumed(), s.recordsConsumed(), s.applied};
    return true;
}

} // namespace strata::app
