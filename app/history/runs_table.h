#pragma once
// `strata runs`: the run history as a text table, newest first, filtered like the history
// page. The table is built here (testable without the binary); ui/main.cpp only parses the
// command line.

#include "app/history/run_history.h"

#include <QString>

#include <vector>

namespace strata::app {

// The command line's options, as typed (checked by runsCommand()).
struct RunsOptions {
    QString database; // empty: RunHistory::defaultPath()
    QString status;   // a status name; empty: all
    QString strategy;
    QString text;     // --filter
    QString limit;    // a positive count; empty: all
};

// One line per run under a header: id, started (local time), name (the label when set),
// strategy, replicas, status, steps, samples/s, test accuracy and loss ("-" when not
// reported), run directory. Columns aligned; no trailing blanks.
QString runsTable(const std::vector<RunRecord>& runs);

// Prints the table of the runs `options` select on stdout. Exit status: 0; 1 when the
// history cannot be opened or read (the message on stderr); 2 for a bad option.
int runsCommand(const RunsOptions& options);

} // namespace strata::app
