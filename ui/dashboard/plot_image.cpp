#include "ui/dashboard/plot_image.h"

#include <qcustomplot.h>

#include <QCoreApplication>
#include <QFileInfo>
#include <QSvgGenerator>

namespace strata::ui {

bool savePlotImage(QCustomPlot* plot, const QString& path, const QString& title, QString* error)
{
    const auto tr = [](const char* text) { return QCoreApplication::translate("strata::ui::SeriesPlot", text); };
    const QString suffix = QFileInfo(path).suffix().toLower();
    const int width = std::max(plot->width(), 800), height = std::max(plot->height(), 500);
    bool ok = false;
    if (suffix == "png") {
        ok = plot->savePng(path, width, height);
    } else if (suffix == "pdf") {
        ok = plot->savePdf(path, width, height, QCP::epAllowCosmetic, QStringLiteral("Strata"), title);
    } else if (suffix == "svg") {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(QSize(width, height));
        svg.setViewBox(QRect(0, 0, width, height));
        svg.setTitle(title);
        QCPPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            plot->toPainter(&painter, width, height);
            ok = painter.end();
        }
    } else {
        if (error)
            *error = tr("Cannot export %1: the file name must end in .png, .svg or .pdf").arg(path);
        return false;
    }
    // QCustomPlot and QSvgGenerator only say whether it worked; check the file is there.
    if (!ok || !QFileInfo(path).isFile() || QFileInfo(path).size() == 0) {
        if (error)
            *error = tr("Cannot write %1: check that its folder exists and is writable").arg(path);
        return false;
    }
    return true;
}

} // namespace strata::ui
