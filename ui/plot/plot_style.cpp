#include "ui/plot/plot_style.h"

#include <qcustomplot.h>

namespace strata::ui {

void stylePlot(QCustomPlot* plot, const QPalette& palette)
{
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    QColor grid = text;
    grid.setAlpha(50); // QCustomPlot's light grey on white, and its match on a dark base
    plot->setBackground(base);
    for (QCPAxisRect* rect : plot->axisRects())
        for (QCPAxis* axis : rect->axes()) {
            axis->setBasePen(QPen(text, 0));
            axis->setTickPen(QPen(text, 0));
            axis->setSubTickPen(QPen(text, 0));
            axis->setTickLabelColor(text);
            axis->setLabelColor(text);
            axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
            axis->grid()->setZeroLinePen(QPen(grid, 0));
        }
    plot->legend->setBrush(base);
    plot->legend->setTextColor(text);
    for (QCPLayoutElement* element : plot->plotLayout()->elements(true))
        if (auto* title = qobject_cast<QCPTextElement*>(element))
            title->setTextColor(text);
}

} // namespace strata::ui
