#pragma once
// TaskMirror: a remote task's files, copied into the run directory here as they arrive
// (events-<task>.jsonl, stderr-<task>.log, steps-<task>.jsonl, appended: a resumed run keeps
// its past), so that history, replay and comparison work for remote runs as for local ones.
// Where each copy lines up with the node's file is its base (node offset - copy size: an
// earlier session only the node has), kept in the launch record (nodes.json).
//
// Threads: the launcher's.

#include "app/launch/job/task_stream.h"

#include <QFile>
#include <QStringList>

namespace strata::app {

class TaskMirror {
public:
    TaskMirror(const QString& runDir, const QString& task);

    // Opens the copies for appending; what could not be opened, a sentence for each.
    QStringList open();
    bool isOpen() const { return m_events.isOpen(); }
    // A copy torn by a Strata killed mid-write ends at its last whole line: the rest comes again.
    static void truncateTorn(const QString& runDir, const QString& task);

    // The follower's first line: where the node's files start, lined up with the copies.
    void lineUp(const FollowLine& follow);
    // Lines up the copies with `eventsBase` etc. from the launch record (attach).
    void setBases(qint64 eventsBase, qint64 stderrBase, qint64 stepsBase);
    void appendEvents(const QByteArray& lines);
    void appendStderr(const QByteArray& data);
    void appendSteps(const QByteArray& records);

    // Where in the node's files the copies end.
    qint64 eventsEnd() const { return m_events.size() + m_eventsBase; }
    qint64 stderrEnd() const { return m_stderr.size() + m_stderrBase; }
    // Where the relayed records end on the node (as the follower said, else as the copy says).
    qint64 stepsEnd() const { return m_stepsOffset >= 0 ? m_stepsOffset : m_steps.size() + m_stepsBase; }
    qint64 eventsBase() const { return m_eventsBase; }
    qint64 stderrBase() const { return m_stderrBase; }
    qint64 stepsBase() const { return m_stepsBase; }

    void closeStreams(); // events and stderr: the run is over

private:
    QFile m_events, m_stderr, m_steps;
    qint64 m_eventsBase = 0, m_stderrBase = 0, m_stepsBase = 0;
    qint64 m_stepsOffset = -1; // where what arrived ends on the node (-1: not known)
};

} // namespace strata::app
