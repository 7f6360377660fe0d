#pragma once
// Tick labels that stay short and never touch: 2500 -> "2500", 12,500 -> "12.5k", 80,000,000
// bytes -> "80 MB"; as many ticks as fit the axis whatever the plot's size and the labels'
// widths; on a step axis only whole steps ("1.5" is no step).

#include <qcustomplot.h>

namespace strata::ui {

enum class TickUnits { Plain, Bytes };

// A ticker for `axis` (linear or logarithmic). `integral`: ticks only at whole numbers, at
// least one apart.
QSharedPointer<QCPAxisTicker> compactTicker(const QCPAxis* axis, TickUnits units, bool logarithmic, bool integral);

} // namespace strata::ui
