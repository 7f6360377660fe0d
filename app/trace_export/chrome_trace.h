#pragma once
// Runs' step timelines as Chrome Trace Event JSON (the format of chrome://tracing, which
// Perfetto's UI opens too; docs/timeline.md):
//   {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}
// One process per task (`pid` from 1, in the runs' order then the tasks'; `process_name`
// "worker:0 @ host", prefixed with the run's label when there are several runs), one thread
// per lane (`tid` 1 "step", 2 "reduce", 3 "ps", others after; `thread_name`), each span a
// complete event (`ph` "X", `ts` and `dur` in µs, `args.step`), and per task a counter
// (`ph` "C", "throughput", args {"samples/s"}) at each step's end.
//
// Times: the job clock (every task's steps on the chief's clock), `ts` counted from the
// earliest span of all the runs (its unix µs in otherData.ts_origin_us), so every ts is >= 0.
// Within one lane of one task events nest perfectly: a span that starts inside another and
// would end after it is clamped to its end (two steps' spans can overlap by a clock
// offset's refresh).

#include "app/trace_export/run_traces.h"

#include <QByteArray>

#include <vector>

namespace strata::app {

QByteArray chromeTraceJson(const std::vector<RunTraces>& runs);

} // namespace strata::app
