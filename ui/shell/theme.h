#pragma once
// The colours Strata draws with, derived from a palette so that they follow the desktop's:
// a dark window colour means a dark palette (Qt 6.4 has no QStyleHints::colorScheme), and
// every view that paints (plots, the placement map, the banner) asks again on
// QEvent::PaletteChange.

#include <QColor>
#include <QPalette>

namespace strata::ui::theme {

// Whether `palette` is a dark one (light text on a dark window).
bool isDark(const QPalette& palette);
// Line colour `index` (Tableau's ten: distinct on screen and in print), brighter on a dark palette.
QColor series(int index, const QPalette& palette);
// Text that reports a failure, and a warning (an unreachable node), readable on the palette's base.
QColor error(const QPalette& palette);
QColor warning(const QPalette& palette);
// A run that completed.
QColor success(const QPalette& palette);
// A dark palette (Fusion's roles), for the screenshots and the tests of what follows it.
QPalette darkPalette();
// The banner's background and border for errors and for notices.
QColor errorBackground(const QPalette& palette);
QColor infoBackground(const QPalette& palette);
QColor errorBorder(const QPalette& palette);
QColor infoBorder(const QPalette& palette);

} // namespace strata::ui::theme
