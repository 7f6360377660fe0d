#pragma once
// A run's colour as a small round swatch, beside its name wherever the Compare page names it
// (the chips, the tables' run columns, the baseline list): filled for a run shown, a ring for
// one hidden.

#include <QColor>
#include <QIcon>

namespace strata::ui {

QIcon runSwatch(const QColor& colour, bool filled = true);

} // namespace strata::ui
