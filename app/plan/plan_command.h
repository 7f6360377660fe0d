#pragma once
// `strata plan EXP [--workers LIST] [--hosts-like-this] [--json] [--quick]`: probes this host
// for the experiment, then prints the planner's table, recommendation and warnings (or the
// plan as JSON). Returns the exit status.

#include <QStringList>

namespace strata::app::plan {

int planCommand(const QStringList& arguments);

} // namespace strata::app::plan
