#pragma once
// A plot's data as CSV: the x column, then one column per line, one row per distinct x
// (a line without a point at that x leaves its cell empty). Every point, not what is drawn.

#include "app/metrics/store_lines.h"

#include <QString>

namespace strata::app {

// `text` as a CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma, a quote or
// a line break.
QByteArray csvField(const QString& text);

// Writes atomically (the file is replaced only when complete); false with the reason.
bool writePlotCsv(const PlotSource& source, const QString& xName, const QString& path, QString* error);

} // namespace strata::app
