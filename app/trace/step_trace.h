#pragma once
// A step's timeline as a task recorded it: the `trace` field of a full-resolution step record
// (docs/event-schema.md, "Step timelines"). The engine writes, per step,
//   "trace": {"t0": <µs, job clock>, "spans": [[lane, name, start_us, dur_us], ...],
//             "clock_offset_us": <µs>}
// `t0` is when the step began on the job's clock (unix microseconds on the chief's clock: the
// task's own clock plus its estimated offset, which is written when it changes); each span's
// start is relative to t0 (negative for what ran before the step began: a checkpoint or an
// evaluation between two steps). Spans of one lane nest perfectly (a span lies wholly inside
// another or wholly outside it); spans of different lanes may overlap (a gradient bucket's
// all-reduce on the "reduce" lane while the "step" lane computes the backward pass).
//
// Lanes, as the engine names them: "step" (the step, and inside it "input", "forward",
// "backward", "wait" for the reductions, "optimizer"; between steps "checkpoint" and
// "evaluation"), "reduce" ("bucket <k>" all-reduces, MultiWorkerMirrored; "all-reduce",
// Mirrored), "ps" ("pull", "push", ParameterServer workers).

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace strata::app {

struct TraceSpan {
    QString lane;
    QString name;
    int64_t startUs = 0; // from the step's t0
    int64_t durUs = 0;
};

struct StepTrace {
    int64_t step = 0;
    int64_t t0Us = 0; // the job clock, unix microseconds
    std::optional<int64_t> clockOffsetUs; // when the record gave one
    std::vector<TraceSpan> spans;
};

} // namespace strata::app
