#include "ui/compare/run_swatch.h"

#include <QPainter>
#include <QPixmap>

namespace strata::ui {

QIcon runSwatch(const QColor& colour, bool filled)
{
    // Drawn at twice the size: sharp on a high-DPI screen, scaled down elsewhere.
    QPixmap pixmap(24, 24);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(colour, 3));
    painter.setBrush(filled ? QBrush(colour) : QBrush(Qt::NoBrush));
    painter.drawEllipse(QRectF(3, 3, 18, 18));
    painter.end();
    return QIcon(pixmap);
}

} // namespace strata::ui
