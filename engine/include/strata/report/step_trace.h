#pragma once
// StepTracer: a task's SpanRecorder turned into each step record's `trace` field
// (docs/event-schema.md, "Step timelines"; the app reads it as app/trace/step_trace.h):
//   {"t0": <µs, job clock>, "spans": [[lane, name, start_us, dur_us], ...], "clock_offset_us": <µs>}
// t0 is the step's start on the job's clock: this task's system clock (sampled once, with the
// steady clock the spans use, so a clock step during the run moves nothing) plus the offset to
// the chief's clock. Spans start relative to t0, whole microseconds; what was recorded before
// the step began (a checkpoint, an evaluation) starts below 0. Within a lane spans nest
// perfectly: a span that starts inside another is clamped to end inside it.
// `clock_offset_us` is written in the first trace and whenever the offset changes.
//
// The field is written as JSON text into a buffer reused every step (EventSink::record appends
// it to the record's line), so that a step costs no allocation and no JSON tree: span names are
// the hooks' static strings, plain ASCII that needs no escaping.
//
// Threads: the training loop's (take()); the recorder is shared with the hooks (see
// strata/core/span_recorder.h).

#include "strata/core/span_recorder.h"

#include <optional>
#include <string>
#include <vector>

namespace strata::run {

class StepTracer {
public:
    StepTracer();

    SpanRecorder* recorder() { return &m_recorder; }
    // The step that began at `stepBegin` as the `trace` object's JSON text: its t0, every
    // lane's spans recorded since the last take (then forgotten) and, when it changed, the
    // offset (µs to add to this task's clock to read the chief's). Valid until the next take.
    const std::string& take(SpanRecorder::Clock::time_point stepBegin, int64_t clockOffsetUs);

private:
    struct Placed {
        int64_t start, end;
        const SpanRecorder::Span* span;
    };
    SpanRecorder m_recorder;
    SpanRecorder::Clock::time_point m_steadyOrigin;
    int64_t m_systemOriginUs = 0;
    std::optional<int64_t> m_writtenOffset;
    std::vector<SpanRecorder::Span> m_taken; // reused every step
    std::vector<Placed> m_placed, m_open;
    std::string m_text;
};

} // namespace strata::run
