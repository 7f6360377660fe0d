#pragma once
// The colours Strata draws with, derived from a palette so that they follow the desktop's:
// a dark window colour means a dark palette (Qt 6.4 has no QStyleHints::colorScheme), and
// every view that paints (plots, the placement map, the banner) asks again on
// QEvent::PaletteChange. The user may choose a light or a dark palette instead of the desktop's
// (View > Theme), remembered for the next start; the window's small stylesheet is made from the
// palette in force.

#include <QColor>
#include <QPalette>
#include <QString>

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

// Whose palette the application uses.
enum class Scheme { Desktop, Light, Dark };
// Gives the application `scheme`'s palette: the desktop's (followed as it changes), the
// style's standard light one, or darkPalette().
void applyScheme(Scheme scheme);
// applyScheme(), and the choice remembered (QSettings) for the next start.
void setScheme(Scheme scheme);
// The remembered choice (Desktop when none, or one this version does not know).
Scheme savedScheme();
// The window's stylesheet for `palette`: the page list (its group headers and the page
// shown), the labelled toolbar buttons and the status bar.
QString styleSheet(const QPalette& palette);

} // namespace strata::ui::theme
