#pragma once
// A QCustomPlot saved as an image with its legend and axes: PNG, SVG or PDF by the file's
// suffix, at a size that reads well on a page whatever the widget's size on screen.

#include <QString>

class QCustomPlot;

namespace strata::ui {

// False with `error` set (a suffix other than .png/.svg/.pdf, a file that cannot be written).
bool savePlotImage(QCustomPlot* plot, const QString& path, const QString& title, QString* error);

} // namespace strata::ui
