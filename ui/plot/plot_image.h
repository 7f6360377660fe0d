#pragma once
// Pictures saved as images: PNG, SVG or PDF by the file's suffix. A QCustomPlot with its
// legend and axes, at a size that reads well on a page whatever the widget's size on screen;
// or any picture a function paints (the placement map).

#include <QSize>
#include <QString>

#include <functional>

class QCustomPlot;
class QPainter;

namespace strata::ui {

// False with `error` set (a suffix other than .png/.svg/.pdf, a file that cannot be written).
bool savePlotImage(QCustomPlot* plot, const QString& path, const QString& title, QString* error);
// `paint` draws the picture over `size` logical pixels (PNG: at twice the pixels; PDF: a page
// of that size in points). False with `error` set, as savePlotImage.
bool savePaintedImage(const QString& path, const QSize& size, const QString& title,
                      const std::function<void(QPainter&)>& paint, QString* error);

} // namespace strata::ui
