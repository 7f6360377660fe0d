#include "ui/plot/plot_controls.h"

#include <QAction>
#include <QHBoxLayout>
#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QToolButton>

#include <array>

namespace strata::ui {

namespace {

enum class Glyph { Fit, LogY, Maximise, Image, Csv };

// Small line drawings in the palette's text colour: legible on a light or dark plot, and no
// image files to ship.
QIcon glyphIcon(Glyph glyph, const QColor& ink)
{
    const int side = 32; // drawn at twice the size of a 16 px button icon
    QPixmap pixmap(side, side);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(ink, 2.4, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    switch (glyph) {
    case Glyph::Fit: // four corners pointing out
        for (const auto& [x, y, dx, dy] : std::array<std::array<int, 4>, 4>{{{5, 5, 1, 1}, {27, 5, -1, 1}, {5, 27, 1, -1}, {27, 27, -1, -1}}}) {
            p.drawLine(x, y, x + 8 * dx, y);
            p.drawLine(x, y, x, y + 8 * dy);
        }
        p.drawLine(11, 21, 16, 13);
        p.drawLine(16, 13, 21, 17);
        break;
    case Glyph::LogY: { // a curve flattening out
        QPainterPath curve(QPointF(5, 27));
        curve.cubicTo(8, 10, 16, 6, 27, 5);
        p.drawPath(curve);
        p.drawLine(4, 4, 4, 28);
        p.drawLine(4, 28, 28, 28);
        break;
    }
    case Glyph::Maximise:
        p.drawRect(QRectF(5, 5, 22, 22));
        p.drawLine(12, 20, 20, 12);
        p.drawLine(20, 12, 14, 12);
        p.drawLine(20, 12, 20, 18);
        break;
    case Glyph::Image: // a framed landscape
        p.drawRect(QRectF(4, 7, 24, 18));
        p.drawPolyline(QPolygonF{QPointF(7, 22), QPointF(13, 15), QPointF(17, 19), QPointF(21, 14), QPointF(25, 22)});
        break;
    case Glyph::Csv: // a table
        p.drawRect(QRectF(5, 5, 22, 22));
        p.drawLine(5, 12, 27, 12);
        p.drawLine(5, 19, 27, 19);
        p.drawLine(14, 5, 14, 27);
        break;
    }
    p.end();
    pixmap.setDevicePixelRatio(2);
    return QIcon(pixmap);
}

} // namespace

PlotControls::PlotControls(QWidget* plot, const Options& options)
    : QObject(plot), m_plot(plot), m_toolbar(new QWidget(plot)),
      m_fit(new QAction(tr("Fit to data"), this)), m_logY(new QAction(tr("Logarithmic y axis"), this)),
      m_maximise(new QAction(tr("Maximise"), this)), m_exportImage(new QAction(tr("Export image (PNG, SVG, PDF)..."), this)),
      m_exportCsv(new QAction(tr("Export data (CSV)..."), this))
{
    m_fit->setObjectName("plotFit");
    m_fit->setToolTip(tr("Fit to data: back to the whole run, following it (double click)"));
    m_logY->setObjectName("plotLogY");
    m_logY->setCheckable(true);
    m_maximise->setObjectName("plotMaximise");
    m_maximise->setCheckable(true);
    m_maximise->setToolTip(tr("Show this plot alone, as large as the dashboard allows (again: back)"));
    m_exportImage->setObjectName("plotExportImage");
    m_exportImage->setToolTip(tr("Export the plot as an image (PNG, SVG or PDF), with its legend and axes"));
    m_exportCsv->setObjectName("plotExportCsv");
    m_exportCsv->setToolTip(tr("Export every point of the plot's lines as CSV"));

    m_toolbar->setObjectName("plotToolbar");
    m_toolbar->setAutoFillBackground(true);
    auto* layout = new QHBoxLayout(m_toolbar);
    layout->setContentsMargins(1, 1, 1, 1);
    layout->setSpacing(0);
    for (QAction* action : {m_fit, m_logY, m_maximise, m_exportImage, m_exportCsv}) {
        auto* button = new QToolButton(m_toolbar);
        button->setDefaultAction(action);
        button->setAutoRaise(true);
        button->setIconSize(QSize(16, 16));
        button->setObjectName(action->objectName() + "Button");
        layout->addWidget(button);
    }
    m_toolbar->hide();
    setOptions(options);
    updateIcons();
}

void PlotControls::setOptions(const Options& options)
{
    m_logY->setVisible(options.logY);
    m_maximise->setVisible(options.maximise);
    m_exportCsv->setVisible(options.csv);
    // A tool button does not follow its action's visibility as a toolbar's would.
    for (auto* button : m_toolbar->findChildren<QToolButton*>())
        button->setVisible(button->defaultAction()->isVisible());
    m_toolbar->adjustSize();
    placeToolbar();
}

QMenu* PlotControls::buildMenu(QWidget* parent, const std::function<void(QMenu&)>& extend) const
{
    auto* menu = new QMenu(parent);
    menu->setObjectName("plotMenu");
    menu->addAction(m_fit);
    if (m_logY->isVisible())
        menu->addAction(m_logY);
    if (m_maximise->isVisible())
        menu->addAction(m_maximise);
    if (extend) {
        menu->addSeparator();
        extend(*menu);
    }
    menu->addSeparator();
    menu->addAction(m_exportImage);
    if (m_exportCsv->isVisible())
        menu->addAction(m_exportCsv);
    return menu;
}

void PlotControls::placeToolbar()
{
    m_toolbar->adjustSize();
    m_toolbar->move(m_plot->width() - m_toolbar->width() - 2, 2);
    m_toolbar->raise();
}

void PlotControls::updateIcons()
{
    const QColor ink = m_plot->palette().color(QPalette::Text);
    m_fit->setIcon(glyphIcon(Glyph::Fit, ink));
    m_logY->setIcon(glyphIcon(Glyph::LogY, ink));
    m_maximise->setIcon(glyphIcon(Glyph::Maximise, ink));
    m_exportImage->setIcon(glyphIcon(Glyph::Image, ink));
    m_exportCsv->setIcon(glyphIcon(Glyph::Csv, ink));
}

} // namespace strata::ui
