#pragma once
// What the Timeline panel shows of the tasks' recent step timelines (step_trace.h): a row per
// task and lane (the task's lanes in laneBefore() order, the tasks in the order given: the
// task table's), each span on the job's clock with its nesting depth in its lane, each step's
// start per task (the boundaries), and the range the panel follows: the last `steps` steps.
//
// Alignment. Every task's steps are placed on the job clock (t0 plus the span's start), so that
// a synchronous job's tasks line up step by step (their step numbers agree) and a
// ParameterServer job's workers, whose steps do not, show what each did at the same time. The
// followed range ends where the newest step of any task ends and begins where the earliest of
// the last `steps` steps of the tasks still current begins: a task is current when its newest
// step ends after the freshest task's last `steps` steps began (a task that failed or finished
// long ago does not stretch the range back to its end; its rows stay, empty there).

#include "app/trace/step_trace_ring.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace strata::app {

struct TimelineSource {
    QString task;
    const StepTraceRing* traces = nullptr;
};

struct TimelineQuery {
    int steps = 4; // the last steps followed
    // The job-clock range wanted (µs, unix); fromUs >= toUs: the followed range.
    int64_t fromUs = 0, toUs = 0;
};

struct TimelineTask {
    QString task;
    int firstRow = 0, rows = 0; // its lanes' rows
};

struct TimelineRow {
    int task = 0; // Timeline::tasks
    QString lane;
};

struct TimelineSpan {
    int row = 0;
    int depth = 0; // 0: outermost in its lane (the "step" span; a checkpoint between steps)
    QString name;
    int64_t step = 0;
    int64_t stepT0Us = 0; // when its step began, job clock
    int64_t startUs = 0;  // job clock
    int64_t durUs = 0;
};

struct TimelineStepStart {
    int task = 0;
    int64_t step = 0;
    int64_t t0Us = 0;
};

struct Timeline {
    std::vector<TimelineTask> tasks; // those with a trace kept, in the order given
    std::vector<TimelineRow> rows;
    // Every trace that reaches into the range asked, whole: by row, then start, outer first.
    std::vector<TimelineSpan> spans;
    std::vector<TimelineStepStart> stepStarts; // of those traces, by task then step
    // The followed range, and the step whose start begins it (of the task `followTask`).
    int64_t followFromUs = 0, followToUs = 0;
    int64_t followStep = 0;
    int followTask = 0;
    // The first current task: the one whose step numbers label the steps (-1: none).
    int referenceTask = -1;
    // The range every kept trace covers.
    int64_t keptFromUs = 0, keptToUs = 0;

    bool empty() const { return rows.empty(); }
};

// The engine's lanes first, in their order ("step", "reduce", "ps"), then any other by name.
bool laneBefore(const QString& a, const QString& b);

Timeline timelineWindow(const std::vector<TimelineSource>& tasks, const TimelineQuery& query);

} // namespace strata::app
