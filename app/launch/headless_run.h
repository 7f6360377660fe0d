#pragma once
// `strata run EXPERIMENT`: the same app code as the window (document, validation, launcher,
// metrics store), without widgets: a progress line on stderr and the outcome at the end. The
// run is recorded in the run history (RunHistory::defaultPath(): $STRATA_HISTORY or the
// user's data directory) as started from "headless"; when it cannot be, a warning says why
// and the run goes on.

#include <QStringList>

namespace strata::app {

struct HeadlessOptions {
    QString experiment;
    QString runDir;     // empty: under the user's data directory
    QString enginePath; // empty: defaultEnginePath()
};

// Runs the experiment to the end (Ctrl-C / SIGTERM stop it cleanly). Exit status: 0 completed
// or stopped, 1 failed, 2 the experiment could not be read or is invalid.
int runHeadless(const HeadlessOptions& options);

} // namespace strata::app
