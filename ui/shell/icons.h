#pragma once
// The window's own icons: line drawings (resources/icons/ui/<name>.svg) in the palette's text
// colour, so that they read on a light and on a dark palette alike (the SVGs draw with
// `currentColor`; Launch and Stop keep their green and red). Ask again on a palette change.

#include <QIcon>
#include <QPalette>
#include <QString>

namespace strata::ui::icons {

// `name`: strategy, cluster, model, data, training, dashboard, history, compare, launch, stop,
// keyboard, documentation. A null icon for another name.
QIcon icon(const QString& name, const QPalette& palette);
// Strata's own icon (resources/icons/strata.svg), for the windows.
QIcon appIcon();

} // namespace strata::ui::icons
