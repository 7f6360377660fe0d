#pragma once
// `strata export trace RUN... OUT.json`: the step timelines of each run (a history id, see
// `strata runs`, or a run directory, as `strata compare` takes them) as one Chrome Trace Event
// file (chrome_trace.h) that Perfetto (ui.perfetto.dev) and chrome://tracing open
// (docs/timeline.md). Every run is read before anything is written. ui/main.cpp hands over the
// arguments after `export`.

#include <QStringList>

#include <cstdio>

namespace strata::app {

// Exit status: 0 written, 1 a run that cannot be read or a file that cannot be written (the
// reason on `err`, naming the file), 2 bad arguments. What was written is summed up on `out`,
// warnings on `err`.
int exportTraceCommand(const QStringList& args, std::FILE* out = stdout, std::FILE* err = stderr);

} // namespace strata::app
