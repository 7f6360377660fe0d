#pragma once
// `strata --screenshots DIR [EXPERIMENT]`: opens the window on an experiment, shows each
// page and saves it as DIR/<nn>-<page>.png, launches the run and saves the live dashboard
// half way through, then stops the run and quits. scripts/screenshots.sh runs it under
// Xvfb for the README.

#include <QString>

namespace strata::ui {

int takeScreenshots(const QString& directory, const QString& experiment, const QString& enginePath);

} // namespace strata::ui
