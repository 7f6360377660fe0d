#pragma once
// TaskStream: a task's stdout as its front process sends it (task_process.h), cut into what it
// holds: the task's event lines, and the follower's own lines among them (docs/event-schema.md),
// which are no events of the task: empty lines (heartbeats), its first line (`follow`: where in
// the node's files it starts) and, when it relays them, `step_records` frames (a line giving
// the size of the step records that follow it). An `exit` event (the supervisor's account of
// the task's end) is an event line too, and is also read. Chunks may end anywhere, in a line or
// in a frame's records; what they end in is kept for the next.
//
// Each line's `type` is read as JSON and compared with the event names of strata/schema/events.h;
// a line that is no JSON object, or a follower's line whose fields are not what it writes, is an
// event line like any other (the store warns about what it cannot read). A field of the wrong
// type counts as absent.
//
// Threads: one at a time (the launcher's).

#include "app/rundir/task_ends.h"

#include <QByteArray>

#include <optional>

namespace strata::app {

// The follower's first line: where in the node's files it starts.
struct FollowLine {
    qint64 offset = 0, stderrOffset = 0;
    qint64 stepsOffset = -1; // -1: its step records are not relayed
};

// What one chunk completed, in the order a consumer applies it: the follow line (a follower's
// first line, before anything else it sends), the step records, the event lines.
struct StreamPiece {
    std::optional<FollowLine> follow;
    QByteArray stepRecords;       // relayed records' bytes (lines once a frame is complete)
    QByteArray eventLines;        // the task's event lines, each with its newline
    std::optional<TaskEnd> exit;  // from the last `exit` event among them
    bool recordsArrived() const { return !stepRecords.isEmpty(); }
};

class TaskStream {
public:
    // `relaysSteps`: the follower frames step records among the lines (start --relay-steps,
    // attach --steps-offset); otherwise a `step_records` line is an event line.
    explicit TaskStream(bool relaysSteps = false) : m_relaysSteps(relaysSteps) {}

    StreamPiece take(const QByteArray& data);
    // What arrived after the last whole line (a last line without its newline); forgotten.
    QByteArray takeRest();
    // Forgets what arrived after the last whole line (a new front process sends it again).
    void reset(bool relaysSteps);
    void reset() { reset(m_relaysSteps); }

private:
    QByteArray m_pending;        // after the last whole line or frame
    qint64 m_recordBytesDue = 0; // of the frame being read
    bool m_relaysSteps = false;
};

} // namespace strata::app
