#pragma once
// A QCustomPlot coloured from a palette (ui/shell/theme.h): its background, axes, ticks, labels,
// grid, legend and titles, so that plots follow the desktop's light or dark palette. Call it
// again on QEvent::PaletteChange.

#include <QPalette>

class QCustomPlot;

namespace strata::ui {

void stylePlot(QCustomPlot* plot, const QPalette& palette);

} // namespace strata::ui
