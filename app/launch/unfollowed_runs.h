#pragma once
// Runs that went on without Strata. A job outlives the Strata that launched it (job_launcher.h),
// so a run the history calls `running` may be training with nobody following it, be followed
// by another Strata right now, or be beyond following (its directory gone, or a run of an
// older Strata, which did not record where its tasks run). What a window does with them when
// it opens.
//
// The Strata following a run holds <run dir>/strata.lock (a QLockFile, so the lock of a process
// that is gone is taken over).

#include <QList>
#include <QString>

namespace strata::app {

class RunHistory;

QString runLockPath(const QString& runDir);
// Whether a live Strata (this process included) follows the run in `runDir` now.
bool isRunFollowed(const QString& runDir);
// Whether the run in `runDir` can be followed again: it has nodes.json and launch.strata.json.
bool canFollowAgain(const QString& runDir);

// The history's `running` runs as a window finds them when it opens: those that cannot be
// followed again are marked interrupted, those another Strata follows are left alone, and the
// ids of the others (they went on without Strata: reattach them) are returned, newest first.
bool unfollowedRuns(RunHistory& history, QList<qint64>* ids, QString* error);

} // namespace strata::app
