#pragma once
// `strata run EXPERIMENT`: the same app code as the window (document, validation, launcher,
// metrics store), without widgets: a progress line on stderr and the outcome at the end. The
// run is recorded in the run history (RunHistory::defaultPath(): $STRATA_HISTORY or the
// user's data directory) as started from "headless"; when it cannot be, a warning says why
// and the run goes on.

#include "app/launch/resume_choice.h"

#include <QStringList>

#include <functional>

namespace strata::app {

class MetricsStore;
class RunHistory;

// What the caller adds once a recorded run completed or was stopped (its history record, its
// store): a line for the terminal (the window's layer checks it against the experiment's plan),
// or empty.
using FinishedRunCheck = std::function<QString(RunHistory& history, qint64 runId, const MetricsStore& store)>;

struct HeadlessOptions {
    QString experiment;
    QString runDir;     // empty: under the user's data directory
    QString enginePath; // empty: defaultEnginePath()
    // When `runDir` holds checkpoints of a different experiment: refused (the message says how
    // to choose), started fresh (--fresh) or from their weights only (--weights-only).
    ResumeChoice resume = ResumeChoice::Resume;
    FinishedRunCheck checkFinished;
};

// Runs the experiment to the end (Ctrl-C / SIGTERM stop it cleanly). Remote nodes are checked
// first, with the terminal answering what SSH asks (an unknown host key, a password); with no
// terminal, an unknown host key is refused, saying how to trust it. Exit status: 0 completed
// or stopped, 1 failed (a node that failed its check included), 2 the experiment could not
// be read or is invalid.
int runHeadless(const HeadlessOptions& options);

// `strata attach RUN`: follows again a run that went on without Strata (`run`: its history id
// or its run directory), from what its files hold, to its end, as `strata run` does; its
// history record gets the outcome. Exit status as runHeadless(); 1 when it cannot be followed.
int attachHeadless(const QString& run, const QString& enginePath, const FinishedRunCheck& checkFinished = {});

} // namespace strata::app
