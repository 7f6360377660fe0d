#pragma once
// Finding the strata-engine binary and asking it what this host offers.

#include "app/experiment/validation.h"

#include <QString>
#include <QStringList>

namespace strata::app {

struct EngineInfo {
    QString path;    // the binary that will be launched
    QString version; // "0.1.0"; empty when it could not be run
    HostCapabilities host;
    QString error;   // why it cannot be used (empty: fine)
    bool usable() const { return error.isEmpty(); }
};

// The engine to use: $STRATA_ENGINE, else next to this program (installed side by side, or
// engine/strata-engine in a build tree), else strata-engine on PATH.
QString defaultEnginePath();
// Checks that `path` exists and is executable, then runs `--version` and `devices --json`.
EngineInfo probeEngine(const QString& path);
// A message naming the path when it cannot be started (missing, not a file, not
// executable); empty when it can.
QString engineProblem(const QString& path);
// The device names an experiment may use: cpu:0 .. cpu:(cpus-1), gpu:0 .. gpu:(gpus-1).
QStringList deviceNames(int cpus, int gpus);

} // namespace strata::app
